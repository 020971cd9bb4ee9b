import { timingSafeEqual, createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { Knex } from 'knex';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { SignatureVerifier } from '../../../api/middleware/signatures.ts';
import { defineRoute, type RouteDefinition } from '../../../api/routing.ts';
import { MessageBody } from '../../../api/schemas.ts';
import { BadRequestError, ConflictError, NotFoundError } from '../../../lib/errors.ts';
import type { SandboxCarrier } from '../carrier.ts';
import { newCallSid } from '../simulated-call.ts';
import type { CallRequest, SmsRequest, TransferRequest, WarmTransferRequest, WhatsAppRequest } from '../../../providers/telephony/types.ts';

export interface SandboxCarrierDeps {
  knex: Knex;
  carrier: SandboxCarrier;
  /** The carrier's key: Parley's own processes present it as a bearer token. */
  token: () => string;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** The longest text the sandbox carrier sends, as Twilio's limit for a message's body. */
export const MAX_MESSAGE_LENGTH = 1600;

/** How long the carrier remembers a dial's key: far longer than any activity retries a dial. */
const KEEP_DIAL_KEYS = "interval '1 day'";

/**
 * The call sid of a dial's key: a new one the caller is to place (`claimed`), or the one an earlier request with
 * the same key placed. The key is claimed before the call is placed, so two requests racing with it dial once.
 */
async function claimDialKey(knex: Knex, idempotencyKey: string): Promise<{ sid: string; claimed: boolean }> {
  await knex('sandbox_call_keys').where('createdAt', '<', knex.raw(`now() - ${KEEP_DIAL_KEYS}`)).delete();
  const sid = newCallSid();
  const inserted = await knex('sandbox_call_keys').insert({ idempotencyKey, callSid: sid }).onConflict('idempotencyKey').ignore().returning('callSid') as unknown[];
  if (inserted.length > 0) return { sid, claimed: true };
  const earlier = await knex('sandbox_call_keys').where({ idempotencyKey }).first<{ callSid: string }>('callSid');
  return { sid: earlier.callSid, claimed: false };
}

/**
 * The sandbox carrier's API, which the sandbox telephony adapter calls from any process as Twilio's adapter
 * calls Twilio: `POST /api/sandbox/carrier/calls` dials (once per `idempotencyKey`), `POST …/calls/{sid}/end` ends a call, `GET
 * …/calls/{sid}` reads what the carrier saw of it and `GET …/calls?to=` the calls to a number; `POST …/scripts`
 * gives a number's callee its lines; `POST …/messages` sends a text and `GET …/messages/{sid}`
 * reads it. Callers present the carrier's key as a bearer token.
 */
export function sandboxCarrierRoutes(deps: SandboxCarrierDeps): RouteDefinition[] {
  const { carrier, knex } = deps;
  const auth: SignatureVerifier = {
    scheme: 'sandbox-carrier',
    verify: (request) => timingSafeEqual(digest(request.header('authorization')), digest(`Bearer ${deps.token()}`)),
  };
  /** A number the carrier provisioned and has not taken back. */
  const holds = async (phoneNumber: string) => Boolean(await knex('sandbox_phone_numbers').where({ phoneNumber }).whereNull('releasedAt').first('id'));
  const findCall = (sid: string) => {
    const call = carrier.get(sid);
    if (!call) throw new NotFoundError('Call not found');
    return call;
  };
  return [
    defineRoute({
      method: 'POST',
      path: '/sandbox/carrier/calls',
      tag: 'Sandbox carrier',
      summary: 'Dials a simulated callee (the sandbox telephony adapter calls this)',
      description: 'Body: the call request, and an `idempotencyKey`: asked again with a key it placed a call for, the carrier answers that call\'s sid and dials nobody.',
      auth,
      bodyKind: 'raw',
      responses: { 201: { description: 'Dialing', schema: Type.Object({ sid: Type.String() }) } },
      async handle({ rawBody }) {
        const { idempotencyKey, ...request } = JSON.parse(rawBody?.toString('utf8') || '{}') as CallRequest & { idempotencyKey?: unknown };
        const to = parsePhoneNumberFromString(String(request.to ?? ''));
        if (!to?.isValid() || to.number !== request.to) throw new BadRequestError(`The sandbox carrier cannot dial ${String(request.to)}: not a valid E.164 number.`);
        if (!await holds(request.from)) throw new BadRequestError(`${String(request.from)} is not a number of the sandbox carrier: calls are placed from numbers bought from it.`);
        if (idempotencyKey === undefined) return { status: 201, body: { sid: carrier.place(request) } };
        if (typeof idempotencyKey !== 'string' || idempotencyKey.length === 0 || idempotencyKey.length > 255) throw new BadRequestError('An `idempotencyKey` is a string of 1 to 255 characters.');
        const sid = await claimDialKey(knex, idempotencyKey);
        return { status: 201, body: { sid: sid.claimed ? carrier.place(request, { sid: sid.sid }) : sid.sid } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/sandbox/carrier/inbound',
      tag: 'Sandbox carrier',
      summary: 'A simulated caller rings one of the numbers (for tests; the softphone page places calls the same way)',
      description: 'Body `{"from": "+1…", "to": "<a number held here>", "lines": ["…"]}`: the caller says `lines`, one after each assistant turn. '
        + 'The call goes where the number is configured to send its calls.',
      auth,
      bodyKind: 'raw',
      responses: { 201: { description: 'Ringing', schema: Type.Object({ sid: Type.String() }) } },
      async handle({ rawBody }) {
        const request = JSON.parse(rawBody?.toString('utf8') || '{}') as { from?: unknown; to?: unknown; lines?: unknown };
        const from = typeof request.from === 'string' ? parsePhoneNumberFromString(request.from) : undefined;
        if (!from?.isValid() || from.number !== request.from || typeof request.to !== 'string') throw new BadRequestError('A call needs a valid E.164 `from` and a `to`.');
        const routing = await knex('sandbox_phone_numbers').where({ phoneNumber: request.to }).whereNull('releasedAt')
          .first<{ voiceUrl: string | null; statusCallbackUrl: string | null } | undefined>('voiceUrl', 'statusCallbackUrl');
        if (!routing) throw new BadRequestError(`${request.to} is not a number of the sandbox carrier: it rings only numbers bought from it.`);
        const lines = Array.isArray(request.lines) ? request.lines.filter((line): line is string => typeof line === 'string').slice(0, 20) : undefined;
        return { status: 201, body: { sid: carrier.ring({ from: from.number, to: request.to, routing, ...(lines ? { lines } : {}) }) } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/sandbox/carrier/calls/{sid}/end',
      tag: 'Sandbox carrier',
      summary: 'Ends a call: cancels its ringing, or hangs it up',
      auth,
      bodyKind: 'raw',
      params: Type.Object({ sid: Type.String({ pattern: '^CA[0-9a-f]{32}$' }) }),
      responses: { 200: { description: 'Ended', schema: MessageBody } },
      handle({ params }) {
        findCall(params.sid);
        carrier.end(params.sid);
        return { body: { message: 'Ended.' } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/sandbox/carrier/calls/{sid}/transfer',
      tag: 'Sandbox carrier',
      summary: 'Hands a live call over to a number, which the carrier bridges to the callee its last two digits choose',
      description: 'Body: the transfer (`to`, `callerId`, `whisperUrl`, `outcomeUrl`, `ringTimeoutSeconds`); the outcome is posted to `outcomeUrl` as Twilio posts a `<Dial action>`.',
      auth,
      bodyKind: 'raw',
      params: Type.Object({ sid: Type.String({ pattern: '^CA[0-9a-f]{32}$' }) }),
      responses: { 200: { description: 'Transferring', schema: MessageBody } },
      handle({ params, rawBody }) {
        findCall(params.sid);
        const request = JSON.parse(rawBody?.toString('utf8') || '{}') as TransferRequest;
        const to = parsePhoneNumberFromString(String(request.to ?? ''));
        if (!to?.isValid() || to.number !== request.to) throw new BadRequestError(`The sandbox carrier cannot transfer to ${String(request.to)}: not a valid E.164 number.`);
        if (typeof request.outcomeUrl !== 'string' || !Number.isFinite(request.ringTimeoutSeconds)) throw new BadRequestError('A transfer needs an outcomeUrl and ringTimeoutSeconds.');
        if (!carrier.transfer(params.sid, request)) throw new ConflictError('The call is not up with its media stream: it cannot be transferred.');
        return { body: { message: 'Transferring.' } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/sandbox/carrier/calls/{sid}/warm-transfer',
      tag: 'Sandbox carrier',
      summary: 'Holds a live call for a supervisor, whom the carrier rings as the callee the number\'s last two digits choose',
      description: 'Body: the warm transfer (`to`, `callerId`, `room`, `holdMusicUrl`, `supervisorTwiml`, `supervisorStatusUrl`, `ringTimeoutSeconds`); '
        + 'the supervisor\'s call status is posted to `supervisorStatusUrl` as Twilio posts status callbacks. Answers the supervisor\'s call sid.',
      auth,
      bodyKind: 'raw',
      params: Type.Object({ sid: Type.String({ pattern: '^CA[0-9a-f]{32}$' }) }),
      responses: { 200: { description: 'Holding', schema: Type.Object({ sid: Type.String() }) } },
      handle({ params, rawBody }) {
        findCall(params.sid);
        const request = JSON.parse(rawBody?.toString('utf8') || '{}') as WarmTransferRequest;
        const to = parsePhoneNumberFromString(String(request.to ?? ''));
        if (!to?.isValid() || to.number !== request.to) throw new BadRequestError(`The sandbox carrier cannot call ${String(request.to)}: not a valid E.164 number.`);
        if (typeof request.supervisorTwiml !== 'string' || typeof request.supervisorStatusUrl !== 'string' || typeof request.room !== 'string' || !Number.isFinite(request.ringTimeoutSeconds)) {
          throw new BadRequestError('A warm transfer needs a room, supervisorTwiml, supervisorStatusUrl and ringTimeoutSeconds.');
        }
        const supervisor = carrier.warmTransfer(params.sid, request);
        if (!supervisor) throw new ConflictError('The call is not up with its media stream: it cannot be transferred.');
        return { body: { sid: supervisor } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/sandbox/carrier/calls/{sid}/update',
      tag: 'Sandbox carrier',
      summary: 'Replaces the TwiML of a call held for a supervisor, as Twilio\'s call update does',
      description: 'Body `{"twiml": "<Response>…</Response>"}`.',
      auth,
      bodyKind: 'raw',
      params: Type.Object({ sid: Type.String({ pattern: '^CA[0-9a-f]{32}$' }) }),
      responses: { 200: { description: 'Updated', schema: MessageBody } },
      handle({ params, rawBody }) {
        findCall(params.sid);
        const { twiml } = JSON.parse(rawBody?.toString('utf8') || '{}') as { twiml?: unknown };
        if (typeof twiml !== 'string') throw new BadRequestError('An update needs its twiml.');
        if (!carrier.updateCall(params.sid, twiml)) throw new ConflictError('The call is not held here: it cannot be updated.');
        return { body: { message: 'Updated.' } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/sandbox/carrier/calls',
      tag: 'Sandbox carrier',
      summary: 'The calls placed to a number, oldest first: how often it was dialled, and what the carrier saw of each',
      description: 'Calls that ended more than ten minutes ago are forgotten.',
      auth,
      bodyKind: 'raw',
      query: Type.Object({ to: Type.String({ minLength: 1, maxLength: 32, description: 'The number called, E.164.' }) }),
      responses: { 200: { description: 'The calls', schema: Type.Object({ data: Type.Array(Type.Object({}, { additionalProperties: true })) }) } },
      handle({ query }) {
        return { body: { data: carrier.callsTo(query.to).map(({ request: _request, ...call }) => call) } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/sandbox/carrier/scripts',
      tag: 'Sandbox carrier',
      summary: "Gives a number's person callee its lines (for tests and benchmarks), in place of the default script",
      description: 'Body `{"phone_number": "+1…", "lines": ["…"]}`: the callee says one line after each assistant turn, then hangs up 2 s after the reply to its last.',
      auth,
      bodyKind: 'raw',
      responses: { 200: { description: 'Registered', schema: MessageBody } },
      handle({ rawBody }) {
        const request = JSON.parse(rawBody?.toString('utf8') || '{}') as { phone_number?: unknown; lines?: unknown };
        const number = typeof request.phone_number === 'string' ? parsePhoneNumberFromString(request.phone_number) : undefined;
        const lines = Array.isArray(request.lines) ? request.lines : [];
        if (!number?.isValid() || number.number !== request.phone_number) throw new BadRequestError('A script needs a valid E.164 `phone_number`.');
        if (lines.length === 0 || lines.length > 20 || !lines.every((line) => typeof line === 'string' && line.length > 0 && line.length <= 500)) {
          throw new BadRequestError('A script needs 1 to 20 `lines` of 1 to 500 characters.');
        }
        carrier.setScript(number.number, lines as string[]);
        return { body: { message: 'Registered.' } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/sandbox/carrier/calls/{sid}',
      tag: 'Sandbox carrier',
      summary: 'What the carrier saw of a call: its status, when it was answered, when the callee first heard the assistant',
      auth,
      bodyKind: 'raw',
      params: Type.Object({ sid: Type.String({ pattern: '^CA[0-9a-f]{32}$' }) }),
      responses: { 200: { description: 'The call', schema: Type.Object({}, { additionalProperties: true }) } },
      handle({ params }) {
        const { request: _request, ...call } = findCall(params.sid);
        return { body: call };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/sandbox/carrier/messages',
      tag: 'Sandbox carrier',
      summary: 'Sends a text from one of its numbers (the sandbox telephony adapter calls this); its status callbacks follow',
      description: 'What becomes of the message depends on the last two digits of `to` (the README has the table); a landline is refused with 400.',
      auth,
      bodyKind: 'raw',
      responses: { 201: { description: 'Queued', schema: Type.Object({ sid: Type.String(), status: Type.Literal('queued') }) } },
      async handle({ rawBody }) {
        const request = JSON.parse(rawBody?.toString('utf8') || '{}') as Partial<SmsRequest>;
        const to = parsePhoneNumberFromString(String(request.to ?? ''));
        if (!to?.isValid() || to.number !== request.to) throw new BadRequestError(`The sandbox carrier cannot text ${String(request.to)}: not a valid E.164 number.`);
        if (!await holds(String(request.from))) throw new BadRequestError(`${String(request.from)} is not a number of the sandbox carrier: messages are sent from numbers bought from it.`);
        if (typeof request.body !== 'string' || request.body === '' || request.body.length > MAX_MESSAGE_LENGTH) {
          throw new BadRequestError(`A message needs a body of 1 to ${MAX_MESSAGE_LENGTH} characters.`);
        }
        if (typeof request.statusCallbackUrl !== 'string') throw new BadRequestError('A message needs a `statusCallbackUrl`.');
        const message = carrier.messages.send({ from: String(request.from), to: to.number, body: request.body, statusCallbackUrl: request.statusCallbackUrl });
        return { status: 201, body: { sid: message.sid, status: message.status } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/sandbox/carrier/whatsapp',
      tag: 'Sandbox carrier',
      summary: 'Sends a WhatsApp message from one of its numbers to the browser page\'s phone (the sandbox telephony adapter calls this)',
      description: 'A template goes as its rendered text. Status callbacks follow: sent, delivered, and read once the page shows it.',
      auth,
      bodyKind: 'raw',
      responses: { 201: { description: 'Queued', schema: Type.Object({ sid: Type.String(), status: Type.Literal('queued') }) } },
      async handle({ rawBody }) {
        const request = JSON.parse(rawBody?.toString('utf8') || '{}') as Partial<WhatsAppRequest>;
        const to = parsePhoneNumberFromString(String(request.to ?? ''));
        if (!to?.isValid() || to.number !== request.to) throw new BadRequestError(`The sandbox carrier cannot reach ${String(request.to)} on WhatsApp: not a valid E.164 number.`);
        if (!await holds(String(request.from))) throw new BadRequestError(`${String(request.from)} is not a number of the sandbox carrier: WhatsApp senders are numbers bought from it.`);
        if (typeof request.body !== 'string' || request.body === '' || request.body.length > MAX_MESSAGE_LENGTH) {
          throw new BadRequestError(`A message needs a body of 1 to ${MAX_MESSAGE_LENGTH} characters.`);
        }
        if (typeof request.statusCallbackUrl !== 'string') throw new BadRequestError('A message needs a `statusCallbackUrl`.');
        const message = carrier.whatsapp.send({ from: String(request.from), to: to.number, body: request.body, statusCallbackUrl: request.statusCallbackUrl });
        return { status: 201, body: { sid: message.sid, status: message.status } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/sandbox/carrier/inbound-messages',
      tag: 'Sandbox carrier',
      summary: 'A simulated phone texts one of the numbers (for tests); answers once Parley has taken the message',
      description: 'Body `{"from": "+1…", "to": "<one of Parley\'s numbers>", "body": "…"}`.',
      auth,
      bodyKind: 'raw',
      responses: { 201: { description: 'Delivered to Parley', schema: Type.Object({ sid: Type.String(), answered: Type.Integer({ description: "Parley's HTTP status." }) }) } },
      async handle({ rawBody }) {
        const request = JSON.parse(rawBody?.toString('utf8') || '{}') as { from?: unknown; to?: unknown; body?: unknown };
        const from = typeof request.from === 'string' ? parsePhoneNumberFromString(request.from) : undefined;
        if (!from?.isValid() || from.number !== request.from || typeof request.to !== 'string' || typeof request.body !== 'string') {
          throw new BadRequestError('A message needs a valid E.164 `from`, a `to` and a `body`.');
        }
        return { status: 201, body: await carrier.messages.receive({ from: from.number, to: request.to, body: request.body.slice(0, MAX_MESSAGE_LENGTH) }) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/sandbox/carrier/messages/{sid}',
      tag: 'Sandbox carrier',
      summary: 'What the carrier saw of a message: its numbers, body and status',
      auth,
      bodyKind: 'raw',
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
