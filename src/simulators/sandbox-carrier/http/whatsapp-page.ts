import { Type } from '@sinclair/typebox';
import type { Knex } from 'knex';
import { defineRoute, type RouteDefinition } from '../../../api/routing.ts';
import { BadRequestError, NotFoundError } from '../../../lib/errors.ts';
import { toE164 } from '../../../lib/phone-numbers.ts';
import type { SandboxCarrier } from '../carrier.ts';
import type { SimulatedWhatsApp } from '../whatsapp.ts';
import { MAX_MESSAGE_LENGTH } from './schemas.ts';
import { heldInParley } from './softphone.ts';

export interface SandboxWhatsAppPageDeps {
  knex: Knex;
  carrier: SandboxCarrier;
}

const TAG = 'Sandbox WhatsApp phone';
/** A person types slower than this; a script writing faster would only run up the sender owner's chat charges. */
const WRITES_PER_MINUTE = 30;

const PhoneText = (description: string) => Type.String({ minLength: 1, maxLength: 32, description });
const ChatQuery = Type.Object({ sender: PhoneText('The sender\'s number, E.164.'), phone: PhoneText('The page\'s phone, E.164.') });
const WriteBody = Type.Object({
  sender: PhoneText('The sender\'s number, E.164.'),
  phone: PhoneText('The page\'s phone, E.164.'),
  name: Type.Optional(Type.String({ maxLength: 100, description: 'The WhatsApp profile name Parley sees.' })),
  body: Type.String({ minLength: 1, maxLength: MAX_MESSAGE_LENGTH }),
});
const ChatMessage = Type.Object({
  sid: Type.String(),
  from: Type.Union([Type.Literal('customer'), Type.Literal('sender')], { description: '`customer`: the page\'s phone wrote it; `sender`: the sender (its assistant or a person) did.' }),
  body: Type.String(),
  status: Type.String({ description: 'queued, sent, delivered, read, failed or undelivered for the sender\'s messages; received for the customer\'s.' }),
  at: Type.String({ format: 'date-time' }),
});

const chatItem = (message: SimulatedWhatsApp) => ({
  sid: message.sid,
  from: message.direction === 'inbound' ? 'customer' : 'sender',
  body: message.body,
  status: message.status,
  at: new Date(message.at).toISOString(),
});

/**
 * The JSON behind the sandbox WhatsApp phone page (`/sandbox/whatsapp`, web/whatsapp-phone.html): the page's phone
 * is any number nobody on Parley holds, as a softphone's is, and it chats with Parley's WhatsApp senders through
 * the sandbox carrier (../whatsapp.ts). Without authentication, as the softphone:
 * mounted only when the sandbox is the deployment's carrier, and the page can do only what a customer's phone can.
 */
export function sandboxWhatsAppPageRoutes(deps: SandboxWhatsAppPageDeps): RouteDefinition[] {
  const { knex, carrier } = deps;

  /** The sender's number and the page's phone, in E.164, checked: a sender of Parley's, and a phone nobody on Parley holds. */
  async function chatOf(request: { sender: string; phone: string }): Promise<{ sender: string; phone: string }> {
    const phone = toE164(request.phone);
    if (!phone) throw new BadRequestError(`${request.phone} is not a valid phone number: write it with its country code, as +4915112345678.`);
    if (await heldInParley(knex, phone)) throw new BadRequestError(`${phone} is one of Parley's numbers: the page's phone is a customer's, any number nobody on Parley holds.`);
    const sender = toE164(request.sender);
    const found = sender ? await knex('whatsapp_senders').where({ phoneNumber: sender }).first<{ id: number } | undefined>('id') : undefined;
    if (!sender || !found) throw new NotFoundError(`${request.sender} is not a WhatsApp sender on Parley.`);
    return { sender, phone };
  }

  return [
    defineRoute({
      method: 'GET',
      path: '/sandbox/whatsapp/senders',
      tag: TAG,
      summary: 'The online WhatsApp senders the page can write to',
      description: 'Served only when the sandbox is the carrier. A sender\'s number and display name are what any customer sees on WhatsApp.',
      auth: 'public',
      responses: { 200: { description: 'The senders, by display name', schema: Type.Object({ data: Type.Array(Type.Object({ phone_number: Type.String(), display_name: Type.String() })) }) } },
      async handle() {
        const senders = await knex('whatsapp_senders').where({ status: 'online' }).orderBy(['displayName', 'phoneNumber']).limit(200)
          .select<{ phoneNumber: string; displayName: string }[]>('phoneNumber', 'displayName');
        return { body: { data: senders.map((sender) => ({ phone_number: sender.phoneNumber, display_name: sender.displayName })) } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/sandbox/whatsapp/chat',
      tag: TAG,
      summary: 'The chat between a sender and the page\'s phone, oldest first, each of the sender\'s messages with its status',
      description: 'The carrier keeps the last 200 messages of a chat, in memory.',
      auth: 'public',
      errors: ['bad_request', 'not_found'],
      query: ChatQuery,
      responses: { 200: { description: 'The chat', schema: Type.Object({ data: Type.Array(ChatMessage) }) } },
      async handle({ query }) {
        const chat = await chatOf(query);
        return { body: { data: carrier.whatsapp.chat(chat.sender, chat.phone).map(chatItem) } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/sandbox/whatsapp/messages',
      tag: TAG,
      summary: 'The page\'s phone writes to a sender; answers once Parley has taken the message (and its assistant replied)',
      description: 'Posted to Parley\'s messaging webhook as Twilio posts a WhatsApp message, with `name` as the profile name.',
      auth: 'public',
      errors: ['bad_request', 'not_found', 'rate_limited'],
      rateLimit: { perMinute: WRITES_PER_MINUTE, bucket: 'sandbox-whatsapp-writes' },
      body: WriteBody,
      responses: { 201: { description: 'Delivered to Parley', schema: Type.Object({ sid: Type.String(), answered: Type.Integer({ description: 'Parley\'s HTTP status.' }) }) } },
      async handle({ body }) {
        if (!body.body.trim()) throw new BadRequestError('A message needs some text.');
        const chat = await chatOf(body);
        return { status: 201, body: await carrier.whatsapp.receive({ ...chat, name: body.name?.trim() ?? '', body: body.body }) };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/sandbox/whatsapp/read',
      tag: TAG,
      summary: 'The page\'s person read the sender\'s messages: each delivered one becomes read, reported to Parley',
      auth: 'public',
      errors: ['bad_request', 'not_found'],
      body: ChatQuery,
      responses: { 200: { description: 'Marked', schema: Type.Object({ marked: Type.Integer({ description: 'How many delivered messages became read.' }) }) } },
      async handle({ body }) {
        const chat = await chatOf(body);
        return { body: { marked: carrier.whatsapp.markRead(chat.sender, chat.phone) } };
      },
    }),
  ];
}
