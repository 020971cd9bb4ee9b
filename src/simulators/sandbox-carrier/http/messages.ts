import { Type, type Static } from '@sinclair/typebox';
import type { RouteDefinition } from '../../../api/routing.ts';
import { BadRequestError, NotFoundError } from '../../../lib/errors.ts';
import { carrierRoute, exactE164, type CarrierApi } from './api.ts';
import { InboundMessageBody, MAX_MESSAGE_LENGTH, SendBody } from './schemas.ts';

const Queued = Type.Object({ sid: Type.String(), status: Type.Literal('queued') });

/** One of the carrier's ways to send a message (a text, a WhatsApp message): its route, its words, its phones. */
interface SendChannel {
  path: string;
  summary: string;
  description: string;
  /** Why a recipient that is not a valid number cannot be sent to. */
  unreachable: (to: string) => string;
  /** What a sender must be, after "… is not a number of the sandbox carrier: ". */
  senders: string;
  send: (message: Static<typeof SendBody>) => { sid: string; status: string };
}

/**
 * The route that sends a message from one of the carrier's numbers: the recipient a valid E.164 number, the
 * sender a number the carrier holds, then the channel sends it (a landline refuses a text: 400) and its status
 * callbacks follow.
 */
function sendRoute(api: CarrierApi, channel: SendChannel): RouteDefinition {
  return carrierRoute(api, {
    method: 'POST',
    path: channel.path,
    summary: channel.summary,
    description: channel.description,
    body: SendBody,
    responses: { 201: { description: 'Queued', schema: Queued } },
    async handle({ body: { from, to, body, statusCallbackUrl } }) {
      if (!exactE164(to)) throw new BadRequestError(channel.unreachable(to));
      if (!await api.holds(from)) throw new BadRequestError(`${from} is not a number of the sandbox carrier: ${channel.senders}.`);
      const message = channel.send({ from, to, body, statusCallbackUrl });
      return { status: 201, body: { sid: message.sid, status: message.status } };
    },
  });
}

/**
 * The carrier's messages: `POST /api/sandbox/carrier/messages` sends a text and `GET …/messages/{sid}` reads it,
 * `POST …/whatsapp` sends a WhatsApp message to the browser page's phone, and `POST …/inbound-messages` texts one
 * of Parley's numbers from a simulated phone.
 */
export function messageRoutes(api: CarrierApi): RouteDefinition[] {
  const { carrier } = api;
  return [
    sendRoute(api, {
      path: '/sandbox/carrier/messages',
      summary: 'Sends a text from one of its numbers (the sandbox telephony adapter calls this); its status callbacks follow',
      description: 'What becomes of the message depends on the last two digits of `to` (the README has the table); a landline is refused with 400.',
      unreachable: (to) => `The sandbox carrier cannot text ${to}: not a valid E.164 number.`,
      senders: 'messages are sent from numbers bought from it',
      send: (message) => carrier.messages.send(message),
    }),
    sendRoute(api, {
      path: '/sandbox/carrier/whatsapp',
      summary: 'Sends a WhatsApp message from one of its numbers to the browser page\'s phone (the sandbox telephony adapter calls this)',
      description: 'A template goes as its rendered text. Status callbacks follow: sent, delivered, and read once the page shows it.',
      unreachable: (to) => `The sandbox carrier cannot reach ${to} on WhatsApp: not a valid E.164 number.`,
      senders: 'WhatsApp senders are numbers bought from it',
      send: (message) => carrier.whatsapp.send(message),
    }),
    carrierRoute(api, {
      method: 'POST',
      path: '/sandbox/carrier/inbound-messages',
      summary: 'A simulated phone texts one of the numbers (for tests); answers once Parley has taken the message',
      body: InboundMessageBody,
      responses: { 201: { description: 'Delivered to Parley', schema: Type.Object({ sid: Type.String(), answered: Type.Integer({ description: "Parley's HTTP status." }) }) } },
      async handle({ body }) {
        if (!exactE164(body.from)) throw new BadRequestError('A message needs a valid E.164 `from`, a `to` and a `body`.');
        return { status: 201, body: await carrier.messages.receive({ from: body.from, to: body.to, body: body.body.slice(0, MAX_MESSAGE_LENGTH) }) };
      },
    }),
    carrierRoute(api, {
      method: 'GET',
      path: '/sandbox/carrier/messages/{sid}',
      summary: 'What the carrier saw of a message: its numbers, body and status',
      params: Type.Object({ sid: Type.String({ pattern: '^SM[0-9a-f]{32}$' }) }),
      responses: { 200: { description: 'The message', schema: Type.Object({}, { additionalProperties: true }) } },
      handle({ params }) {
        const message = carrier.messages.get(params.sid);
        if (!message) throw new NotFoundError('Message not found');
        return { body: message };
      },
    }),
  ];
}
