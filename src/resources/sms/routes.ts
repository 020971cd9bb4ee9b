import { defineRoute, type RouteDefinition } from '../../api/routing.ts';
import { lengthAwarePage } from '../../lib/pagination.ts';
import { SendSmsBody, SmsListQuery, SmsPage, SmsSent } from './schemas.ts';
import { sentItem, smsItem } from './serialize.ts';
import { listMessages, sendSms, type SmsDeps } from './service.ts';

const TAG = 'SMS';

export function smsRoutes(deps: SmsDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/user/sms',
      tag: TAG,
      summary: 'Send a text from one of your numbers (send an Idempotency-Key header to retry safely)',
      description: 'Charged per segment from the balance before it is sent, and refunded when the carrier refuses it (500, with the carrier\'s '
        + 'reason in `error`) or reports it `failed`. The recipient must be in a country of one of your numbers.',
      auth: 'bearer',
      body: SendSmsBody,
      errors: ['insufficient_balance', 'conflict', 'provider_refused', 'provider_unavailable'],
      responses: { 200: { description: 'Handed to the carrier', schema: SmsSent } },
      async handle({ auth, body, ctx }) {
        const message = await sendSms(deps, auth.user.id, body, ctx.get('idempotency-key') || undefined);
        return { body: { message: 'SMS sent successfully' as const, data: sentItem(message) } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/user/sms',
      tag: TAG,
      summary: 'Your text messages, sent and received, newest first, paginated',
      auth: 'bearer',
      query: SmsListQuery,
      responses: { 200: { description: 'A page of messages', schema: SmsPage } },
      async handle({ auth, query, ctx }) {
        const page = { page: query.page ?? 1, perPage: query.per_page ?? 15 };
        const direction = query.direction as 'outbound' | 'inbound' | undefined;
        const { messages, total } = await listMessages(deps.knex, auth.user.id, { direction }, page);
        return { body: lengthAwarePage({ data: messages.map(smsItem), total, page, path: `${deps.publicUrl}/api/user/sms`, query: ctx.query }) };
      },
    }),
  ];
}
