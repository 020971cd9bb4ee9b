import { Type } from '@sinclair/typebox';
import type { Knex } from 'knex';
import { twilioSignature } from '../../api/middleware/signatures.ts';
import { defineRoute, type RouteDefinition } from '../../api/routing.ts';
import { IdInteger, MessageBody } from '../../api/schemas.ts';
import type { Logger } from '../../logger.ts';
import { holdMusicWav } from '../../providers/telephony/hold-music.ts';
import type { TelephonyProvider } from '../../providers/telephony/types.ts';
import type { TemporalClient } from '../../temporal/client.ts';
import { EMPTY_TWIML, receiveMessage, recordMessageStatus } from '../sms/status.ts';
import { isWhatsApp, receiveWhatsApp, type InboundDeps } from '../whatsapp/inbound.ts';
import { answerInboundCall, type InboundCallDeps } from './inbound.ts';
import { recordCarrierStatus, recordCarrierVerdict } from './service.ts';
import { recordTransferOutcome, whisperTwiml } from './transfers.ts';
import { bridgeSupervisor, callerLeftHold, recordSupervisorStatus } from './warm-transfers.ts';

export interface CarrierCallbackDeps extends InboundCallDeps {
  knex: Knex;
  temporal: TemporalClient;
  logger: Logger;
  telephony: TelephonyProvider;
  /** PUBLIC_URL: the address the carrier was given, which its signature covers. */
  publicUrl: string;
  /** Where WhatsApp messages to a sender go (their `From` is `whatsapp:+…`); without it they are stored as texts. */
  whatsapp?: InboundDeps;
}

/**
 * The carrier's webhooks, form bodies in Twilio's terms (the sandbox carrier posts the same), signed with
 * `X-Twilio-Signature` over the URL and the parameters; a forged or unsigned one is refused with 403 before
 * anything is read. `POST /api/telephony/<carrier>/voice`: a call to one of the numbers, answered with TwiML.
 * `POST /api/telephony/<carrier>/status[?call_id=<id>]`: a call's status changes (the calls Parley dials carry
 * their id; a number's own callbacks name the call by the carrier's id). `POST /api/telephony/<carrier>/answered-by
 * ?call_id=<id>`: the carrier's answering-machine detection on a dialled call (Twilio's asynchronous AMD).
 * `POST …/transfer?call_id=<id>`: the outcome of a call's transfer to a number (its `<Dial action>`), and
 * `POST …/whisper?call_id=<id>`: what the person answering a warm transfer hears first; both answered with TwiML.
 * A warm transfer to a supervisor (warm-transfers.ts): `GET …/hold-music?volume=<0-100>`, the WAV the caller
 * waits with (public); `POST …/warm-transfer/bridge?call_id=<id>`, the briefed supervisor joining the caller
 * (TwiML); `POST …/warm-transfer/status?call_id=<id>`, the supervisor's call status.
 * `POST /api/telephony/<carrier>/messages`: a text to one of the numbers, stored and answered with empty TwiML; a
 * WhatsApp message to a sender (Twilio posts those here too, `From: whatsapp:+…`) is answered by its assistant.
 * `POST /api/telephony/<carrier>/messages/status?sms_id=<id>`: a sent message's status changes.
 */
export function carrierCallbackRoutes(deps: CarrierCallbackDeps): RouteDefinition[] {
  const { telephony } = deps;
  const auth = twilioSignature({ authToken: telephony.callbackToken(), publicUrl: deps.publicUrl });
  return [
    defineRoute({
      method: 'POST',
      path: `/telephony/${telephony.name}/voice`,
      tag: 'Provider callbacks',
      summary: 'A call to one of the numbers: answered with TwiML',
      description: 'Set on each number when it is bought; it is not called by users.',
      auth,
      bodyKind: 'form',
      body: Type.Object({
        CallSid: Type.String({ minLength: 1, maxLength: 64 }),
        From: Type.String({ maxLength: 64 }),
        To: Type.String({ maxLength: 64 }),
      }, { additionalProperties: true }),
      responses: { 200: { description: 'TwiML', schema: Type.String(), contentType: 'text/xml' } },
      async handle({ body }) {
        const answer = await answerInboundCall(deps, { to: body.To, from: body.From, providerCallId: body.CallSid });
        return { body: answer, type: 'text/xml' };
      },
    }),
    defineRoute({
      method: 'POST',
      path: `/telephony/${telephony.name}/transfer`,
      tag: 'Provider callbacks',
      summary: 'The outcome of a call\'s transfer to a number: answered with what the caller hears then',
      description: 'Parley gives this URL to the carrier with each transfer (`<Dial action>`); it is not called by users.',
      auth,
      bodyKind: 'form',
      query: Type.Object({ call_id: IdInteger() }),
      body: Type.Object({
        DialCallStatus: Type.String({ maxLength: 32 }),
        DialCallDuration: Type.Optional(Type.String({ pattern: '^[0-9]{1,9}$' })),
      }, { additionalProperties: true }),
      responses: { 200: { description: 'TwiML', schema: Type.String(), contentType: 'text/xml' } },
      async handle({ query, body }) {
        const duration = body.DialCallDuration === undefined ? undefined : Number(body.DialCallDuration);
        const answer = await recordTransferOutcome(deps, { callId: query.call_id, dialStatus: body.DialCallStatus, duration });
        return { body: answer, type: 'text/xml' };
      },
    }),
    defineRoute({
      method: 'POST',
      path: `/telephony/${telephony.name}/whisper`,
      tag: 'Provider callbacks',
      summary: 'What the person answering a warm transfer hears before the caller is connected',
      description: 'Parley gives this URL to the carrier with each warm transfer (`<Number url>`); it is not called by users.',
      auth,
      bodyKind: 'form',
      query: Type.Object({ call_id: IdInteger() }),
      responses: { 200: { description: 'TwiML', schema: Type.String(), contentType: 'text/xml' } },
      async handle({ query }) {
        return { body: await whisperTwiml(deps.knex, query.call_id), type: 'text/xml' };
      },
    }),
    defineRoute({
      method: 'GET',
      path: `/telephony/${telephony.name}/hold-music`,
      tag: 'Provider callbacks',
      summary: 'The hold music of a warm transfer, at a volume: a WAV the carrier plays while the caller waits',
      description: 'Parley gives this URL to the carrier with each warm transfer (`<Conference waitUrl>`). Generated, the same for everyone: it needs no signature.',
      auth: 'public',
      bodyKind: 'raw',
      query: Type.Object({ volume: Type.Integer({ minimum: 0, maximum: 100 }) }),
      responses: { 200: { description: 'PCM16 mono WAV at 8 kHz', schema: Type.String({ format: 'binary' }), contentType: 'audio/wav' } },
      handle({ query }) {
        return { body: holdMusicWav(query.volume), type: 'audio/wav', headers: { 'cache-control': 'public, max-age=86400' } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: `/telephony/${telephony.name}/warm-transfer/bridge`,
      tag: 'Provider callbacks',
      summary: 'A briefed supervisor is joined to the waiting caller: answered with TwiML',
      description: 'The supervisor\'s TwiML of a warm transfer redirects here once the briefing has been said; it is not called by users.',
      auth,
      bodyKind: 'form',
      query: Type.Object({ call_id: IdInteger() }),
      responses: { 200: { description: 'TwiML', schema: Type.String(), contentType: 'text/xml' } },
      async handle({ query }) {
        return { body: await bridgeSupervisor(deps, query.call_id), type: 'text/xml' };
      },
    }),
    defineRoute({
      method: 'POST',
      path: `/telephony/${telephony.name}/warm-transfer/status`,
      tag: 'Provider callbacks',
      summary: 'The status of a warm transfer\'s call to the supervisor',
      description: 'Parley gives this URL to the carrier with the supervisor\'s call; it is not called by users.',
      auth,
      bodyKind: 'form',
      query: Type.Object({ call_id: IdInteger() }),
      body: Type.Object({
        CallStatus: Type.String({ maxLength: 32 }),
        CallDuration: Type.Optional(Type.String({ pattern: '^[0-9]{1,9}$' })),
      }, { additionalProperties: true }),
      responses: { 200: { description: 'Received', schema: MessageBody } },
      async handle({ query, body }) {
        const duration = body.CallDuration === undefined ? undefined : Number(body.CallDuration);
        await recordSupervisorStatus(deps, { callId: query.call_id, status: body.CallStatus, duration });
        return { body: { message: 'Received.' } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: `/telephony/${telephony.name}/status`,
      tag: 'Provider callbacks',
      summary: 'A call\'s status changes, as the carrier reports them',
      description: 'Parley gives this URL to the carrier with each call it dials; it is not called by users.',
      auth,
      bodyKind: 'form',
      query: Type.Object({ call_id: Type.Optional(IdInteger()) }),
      body: Type.Object({
        CallSid: Type.String({ minLength: 1, maxLength: 64 }),
        CallStatus: Type.String({ maxLength: 32 }),
        Timestamp: Type.Optional(Type.String({ maxLength: 64 })),
      }, { additionalProperties: true }),
      responses: { 200: { description: 'Received', schema: MessageBody } },
      async handle({ query, body }) {
        await recordCarrierStatus(deps, { callId: query.call_id, providerCallId: body.CallSid, status: body.CallStatus, timestamp: body.Timestamp });
        await callerLeftHold(deps, { callId: query.call_id, providerCallId: body.CallSid, status: body.CallStatus });
        return { body: { message: 'Received.' } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: `/telephony/${telephony.name}/answered-by`,
      tag: 'Provider callbacks',
      summary: 'Who answered a dialled call, as the carrier\'s answering-machine detection found',
      description: 'Parley gives this URL to the carrier with each call it dials (Twilio\'s asynchronous AMD); it is not called by users.',
      auth,
      bodyKind: 'form',
      query: Type.Object({ call_id: IdInteger() }),
      body: Type.Object({
        CallSid: Type.String({ minLength: 1, maxLength: 64 }),
        AnsweredBy: Type.String({ maxLength: 32 }),
      }, { additionalProperties: true }),
      responses: { 200: { description: 'Received', schema: MessageBody } },
      async handle({ query, body }) {
        await recordCarrierVerdict(deps, { callId: query.call_id, providerCallId: body.CallSid, answeredBy: body.AnsweredBy });
        return { body: { message: 'Received.' } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: `/telephony/${telephony.name}/messages`,
      tag: 'Provider callbacks',
      summary: 'A text to one of the numbers: stored for its owner, answered with empty TwiML',
      description: 'Set on each number when it is bought; it is not called by users.',
      auth,
      bodyKind: 'form',
      body: Type.Object({
        MessageSid: Type.String({ minLength: 1, maxLength: 64 }),
        From: Type.String({ maxLength: 64 }),
        To: Type.String({ maxLength: 64 }),
        Body: Type.String({ maxLength: 4096 }),
        ProfileName: Type.Optional(Type.String({ maxLength: 255 })),
      }, { additionalProperties: true }),
      responses: { 200: { description: 'TwiML', schema: Type.String(), contentType: 'text/xml' } },
      async handle({ body }) {
        if (deps.whatsapp && isWhatsApp(body.From)) {
          await receiveWhatsApp(deps.whatsapp, { providerMessageId: body.MessageSid, from: body.From, to: body.To, body: body.Body, profileName: body.ProfileName });
          return { body: EMPTY_TWIML, type: 'text/xml' };
        }
        await receiveMessage({ ...deps, provider: telephony.name }, { providerMessageId: body.MessageSid, from: body.From, to: body.To, body: body.Body });
        return { body: EMPTY_TWIML, type: 'text/xml' };
      },
    }),
    defineRoute({
      method: 'POST',
      path: `/telephony/${telephony.name}/messages/status`,
      tag: 'Provider callbacks',
      summary: 'A sent message\'s status changes, as the carrier reports them',
      description: 'Parley gives this URL to the carrier with each message it sends; it is not called by users.',
      auth,
      bodyKind: 'form',
      query: Type.Object({ sms_id: Type.Optional(IdInteger()) }),
      body: Type.Object({
        MessageSid: Type.String({ minLength: 1, maxLength: 64 }),
        MessageStatus: Type.String({ maxLength: 32 }),
        ErrorCode: Type.Optional(Type.String({ maxLength: 16 })),
      }, { additionalProperties: true }),
      responses: { 200: { description: 'Received', schema: MessageBody } },
      async handle({ query, body }) {
        await recordMessageStatus(deps, { smsId: query.sms_id, providerMessageId: body.MessageSid, status: body.MessageStatus, errorCode: body.ErrorCode || undefined });
        return { body: { message: 'Received.' } };
      },
    }),
  ];
}
