import { Type } from '@sinclair/typebox';
import { defineRoute, type RouteDefinition } from '../../api/routing.ts';
import { microsToUsd } from '../../lib/money.ts';
import { purchaseNumber, purchaseTexts, searchNumbers, type PurchaseDeps } from './purchase.ts';

const AvailableNumberItem = Type.Object({
  phone_number: Type.String({ examples: ['+14155550123'] }),
  phone_number_formatted: Type.String({ examples: ['(415) 555-0123'] }),
  country_code: Type.String({ examples: ['US'] }),
  price: Type.Number({ description: 'USD per month.' }),
  stripe_price_id: Type.Null({ description: 'Parley charges each month as a payment of its own, not through a Stripe Price.' }),
  address_requirements: Type.Union(['none', 'local', 'foreign', 'inventory'].map((value) => Type.Literal(value))),
  sms_capable: Type.Boolean(),
}, { title: 'AvailablePhoneNumber' });

const PurchasedNumber = Type.Object({
  id: Type.Integer(),
  phone_number: Type.String(),
  country_code: Type.String(),
  type: Type.Literal('normal'),
  sms_capable: Type.Boolean(),
}, { title: 'PurchasedPhoneNumber' });

export function phoneNumberPurchaseRoutes(deps: PurchaseDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/user/phone-numbers/search',
      tag: 'Phone numbers',
      summary: 'Numbers offered for purchase in a country',
      description: 'A purchase must be of a number a search showed the caller within the last hour, at the price shown.',
      auth: 'bearer',
      errorStyle: 'error',
      query: Type.Object({
        country_code: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$', default: 'US', description: 'ISO 3166-1 alpha-2.' })),
        contains: Type.Optional(Type.String({ pattern: '^[0-9]{1,10}$', description: 'Digits the number must contain.' })),
      }),
      responses: { 200: { description: 'The numbers offered (none when the country is not served)', schema: Type.Object({ data: Type.Array(AvailableNumberItem) }) } },
      async handle({ auth, query }) {
        const found = await searchNumbers(deps, auth.user.id, { countryCode: (query.country_code ?? 'US').toUpperCase(), contains: query.contains });
        return {
          body: {
            data: found.map((number) => ({
              phone_number: number.phoneNumber,
              phone_number_formatted: number.phoneNumberFormatted,
              country_code: number.countryCode,
              price: microsToUsd(number.monthlyPriceMicros),
              stripe_price_id: null,
              address_requirements: number.addressRequirements,
              sms_capable: number.smsCapable,
            })),
          },
        };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/user/phone-numbers/purchase',
      tag: 'Phone numbers',
      summary: 'Buy a number a search offered',
      description: 'Provisions the number and charges its first month to the default payment method; it then renews monthly (workflow `phone-number-<id>`).',
      auth: 'bearer',
      errorStyle: 'error',
      failureText: purchaseTexts.providerFailed,
      body: Type.Object({ phone_number: Type.String({ maxLength: 32, examples: ['+14155550123'] }) }),
      errors: ['bad_request', 'payment_required', 'unprocessable'],
      responses: { 201: { description: 'Bought', schema: Type.Object({ message: Type.String(), data: PurchasedNumber }) } },
      async handle({ auth, body }) {
        const number = await purchaseNumber(deps, auth.user.id, body.phone_number);
        return {
          status: 201,
          body: {
            message: 'Phone number purchased successfully.',
            data: { id: number.id, phone_number: number.phoneNumber, country_code: number.countryCode, type: 'normal' as const, sms_capable: number.smsCapable },
          },
        };
      },
    }),
  ];
}
