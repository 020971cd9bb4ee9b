import { timingSafeEqual, createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { Knex } from 'knex';
import type { RouteDefinition } from '../../../api/routing.ts';
import { MessageBody } from '../../../api/schemas.ts';
import { BadRequestError, ConflictError, NotFoundError } from '../../../lib/errors.ts';
import { carrierRoute, exactE164, type CarrierApi } from './api.ts';
import type { SandboxCarrier } from '../carrier.ts';
import { newCallSid } from '../simulated-call.ts';
import { messageRoutes } from './messages.ts';
import { DialBody, InboundCallBody, ScriptBody, TransferBody, UpdateBody, WarmTransferBody } from './schemas.ts';

export interface SandboxCarrierDeps {
  knex: Knex;
  carrier: SandboxCarrier;
  /** The carrier's key: Parley's own processes present it as a bearer token. */
  token: () => string;
}

const digest = (text: string) => createHash('sha256').update(text).digest();
const CallSid = Type.Object({ sid: Type.String({ pattern: '^CA[0-9a-f]{32}$' }) });
const SidAnswer = Type.Object({ sid: Type.String() });

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
 * gives a number's callee its lines; the messages are in messages.ts. Callers present the carrier's key as a
 * bearer token.
 */
export function sandboxCarrierRoutes(deps: SandboxCarrierDeps): RouteDefinition[] {
  const { carrier, knex } = deps;
  const api: CarrierApi = {
    carrier,
    auth: {
      scheme: 'sandbox-carrier',
      headerOnly: true,
      verify: (request) => timingSafeEqual(digest(request.header('authorization')), digest(`Bearer ${deps.token()}`)),
    },
    holds: async (phoneNumber) => Boolean(await knex('sandbox_phone_numbers').where({ phoneNumber }).whereNull('releasedAt').first('id')),
  };
  const findCall = (sid: string) => {
    const call = carrier.get(sid);
    if (!call) throw new NotFoundError('Call not found');
    return call;
  };
  return [
    carrierRoute(api, {
      method: 'POST',
      path: '/sandbox/carrier/calls',
      summary: 'Dials a simulated callee (the sandbox telephony adapter calls this)',
      description: 'Body: the call request, and an `idempotencyKey`: asked again with a key it placed a call for, the carrier answers that call\'s sid and dials nobody.',
      body: DialBody,
      responses: { 201: { description: 'Dialing', schema: SidAnswer } },
      async handle({ body: { idempotencyKey, ...request } }) {
        if (!exactE164(request.to)) throw new BadRequestError(`The sandbox carrier cannot dial ${request.to}: not a valid E.164 number.`);
        if (!await api.holds(request.from)) throw new BadRequestError(`${request.from} is not a number of the sandbox carrier: calls are placed from numbers bought from it.`);
        if (idempotencyKey === undefined) return { status: 201, body: { sid: carrier.place(request) } };
        const sid = await claimDialKey(knex, idempotencyKey);
        return { status: 201, body: { sid: sid.claimed ? carrier.place(request, { sid: sid.sid }) : sid.sid } };
      },
    }),
    carrierRoute(api, {
      method: 'POST',
      path: '/sandbox/carrier/inbound',
      summary: 'A simulated caller rings one of the numbers (for tests; the softphone page places calls the same way)',
      description: 'The caller says `lines`, one after each assistant turn. The call goes where the number is configured to send its calls.',
      body: InboundCallBody,
      responses: { 201: { description: 'Ringing', schema: SidAnswer } },
      async handle({ body: request }) {
        if (!exactE164(request.from)) throw new BadRequestError('A call needs a valid E.164 `from` and a `to`.');
        const routing = await knex('sandbox_phone_numbers').where({ phoneNumber: request.to }).whereNull('releasedAt')
          .first<{ voiceUrl: string | null; statusCallbackUrl: string | null } | undefined>('voiceUrl', 'statusCallbackUrl');
        if (!routing) throw new BadRequestError(`${request.to} is not a number of the sandbox carrier: it rings only numbers bought from it.`);
        const lines = request.lines?.slice(0, 20);
        return { status: 201, body: { sid: carrier.ring({ from: request.from, to: request.to, routing, ...(lines ? { lines } : {}) }) } };
      },
    }),
    carrierRoute(api, {
      method: 'POST',
      path: '/sandbox/carrier/calls/{sid}/end',
      summary: 'Ends a call: cancels its ringing, or hangs it up',
      params: CallSid,
      responses: { 200: { description: 'Ended', schema: MessageBody } },
      handle({ params }) {
        findCall(params.sid);
        carrier.end(params.sid);
        return { body: { message: 'Ended.' } };
      },
    }),
    carrierRoute(api, {
      method: 'POST',
      path: '/sandbox/carrier/calls/{sid}/transfer',
      summary: 'Hands a live call over to a number, which the carrier bridges to the callee its last two digits choose',
      description: 'The outcome is posted to `outcomeUrl` as Twilio posts a `<Dial action>`.',
      params: CallSid,
      body: TransferBody,
      responses: { 200: { description: 'Transferring', schema: MessageBody } },
      handle({ params, body: request }) {
        findCall(params.sid);
        if (!exactE164(request.to)) throw new BadRequestError(`The sandbox carrier cannot transfer to ${request.to}: not a valid E.164 number.`);
        if (!carrier.transfer(params.sid, request)) throw new ConflictError('The call is not up with its media stream: it cannot be transferred.');
        return { body: { message: 'Transferring.' } };
      },
    }),
    carrierRoute(api, {
      method: 'POST',
      path: '/sandbox/carrier/calls/{sid}/warm-transfer',
      summary: 'Holds a live call for a supervisor, whom the carrier rings as the callee the number\'s last two digits choose',
      description: 'The supervisor\'s call status is posted to `supervisorStatusUrl` as Twilio posts status callbacks. Answers the supervisor\'s call sid.',
      params: CallSid,
      body: WarmTransferBody,
      responses: { 200: { description: 'Holding', schema: SidAnswer } },
      handle({ params, body: request }) {
        findCall(params.sid);
        if (!exactE164(request.to)) throw new BadRequestError(`The sandbox carrier cannot call ${request.to}: not a valid E.164 number.`);
        const supervisor = carrier.warmTransfer(params.sid, { ...request, holdMusicUrl: request.holdMusicUrl });
        if (!supervisor) throw new ConflictError('The call is not up with its media stream: it cannot be transferred.');
        return { body: { sid: supervisor } };
      },
    }),
    carrierRoute(api, {
      method: 'POST',
      path: '/sandbox/carrier/calls/{sid}/update',
      summary: 'Replaces the TwiML of a call held for a supervisor, as Twilio\'s call update does',
      params: CallSid,
      body: UpdateBody,
      responses: { 200: { description: 'Updated', schema: MessageBody } },
      handle({ params, body }) {
        findCall(params.sid);
        if (!carrier.updateCall(params.sid, body.twiml)) throw new ConflictError('The call is not held here: it cannot be updated.');
        return { body: { message: 'Updated.' } };
      },
    }),
    carrierRoute(api, {
      method: 'GET',
      path: '/sandbox/carrier/calls',
      summary: 'The calls placed to a number, oldest first: how often it was dialled, and what the carrier saw of each',
      description: 'Calls that ended more than ten minutes ago are forgotten.',
      query: Type.Object({ to: Type.String({ minLength: 1, maxLength: 32, description: 'The number called, E.164.' }) }),
      responses: { 200: { description: 'The calls', schema: Type.Object({ data: Type.Array(Type.Object({}, { additionalProperties: true })) }) } },
      handle({ query }) {
        return { body: { data: carrier.callsTo(query.to).map(({ request: _request, ...call }) => call) } };
      },
    }),
    carrierRoute(api, {
      method: 'POST',
      path: '/sandbox/carrier/scripts',
      summary: "Gives a number's person callee its lines (for tests and benchmarks), in place of the default script",
      description: 'The callee says one line after each assistant turn, then hangs up 2 s after the reply to its last.',
      body: ScriptBody,
      responses: { 200: { description: 'Registered', schema: MessageBody } },
      handle({ body }) {
        if (!exactE164(body.phone_number)) throw new BadRequestError('A script needs a valid E.164 `phone_number`.');
        carrier.setScript(body.phone_number, body.lines);
        return { body: { message: 'Registered.' } };
      },
    }),
    carrierRoute(api, {
      method: 'GET',
      path: '/sandbox/carrier/calls/{sid}',
      summary: 'What the carrier saw of a call: its status, when it was answered, when the callee first heard the assistant',
      params: CallSid,
      responses: { 200: { description: 'The call', schema: Type.Object({}, { additionalProperties: true }) } },
      handle({ params }) {
        const { request: _request, ...call } = findCall(params.sid);
        return { body: call };
      },
    }),
    ...messageRoutes(api),
  ];
}
