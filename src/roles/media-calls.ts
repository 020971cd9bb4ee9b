import { createHash, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';
import type { WebSocket } from 'ws';
import type { Knex } from 'knex';
import { NotFoundError, RejectedError, ServiceUnavailableError, UnauthenticatedError } from '../lib/errors.ts';
import { mediaControlToken, PHONE_STREAM_PATH, phoneStreamToken } from '../lib/media-control.ts';
import { resolveAppKey } from '../lib/app-key.ts';
import { assistantPorts } from '../resources/assistants/ports.ts';
import { loadAgentProfile } from '../resources/assistants/profile.ts';
import { loadVoiceSettings } from '../resources/assistants/voice-profile.ts';
import { NO_MODEL_MESSAGE } from '../resources/conversations/service.ts';
import { redeemWebCallToken } from '../resources/web-calls/service.ts';
import { signalAnsweredBy, signalCallAnswered, signalCallEnded } from '../temporal/call-signals.ts';
import { openingLine } from '../agent/turn-input.ts';
import { closeFrameFor } from '../voice/close-codes.ts';
import { END_REASONS, type EndReason } from '../voice/hooks.ts';
import { readingAloud } from '../voice/reading-aloud.ts';
import { goodbyesIn } from '../voice/session.ts';
import { runCallSession, type AssistantSetup, type CallSetup, type RunningCall } from '../voice/run.ts';
import { SpokenLineCache } from '../voice/spoken-lines.ts';
import type { StreamStart } from '../voice/transports/media-stream.ts';
import { callsInProgress, callsRefused, observeTurn } from '../lib/metrics.ts';
import { openRecordingSink } from './call-recording.ts';
import { assistantLine, phoneLine } from './call-transfers.ts';
import { sendJson } from './http-server.ts';
import type { MediaRoute, StreamHandler } from './media.ts';
import type { RoleContext } from './role.ts';

/** The live calls of this replica and the routes that serve them. */
export interface CallGateway {
  streams: Record<string, StreamHandler>;
  routes: Record<string, MediaRoute>;
  liveCalls: () => number;
  /** Calls `watcher` each time this replica takes a call up or lets one go, its count changed. */
  watchLiveCalls: (watcher: () => void) => void;
}

/** How long a call waits for its workflow to set the call's time limit before it starts without it. */
const limitWaitMs = 3000;

interface CallRow {
  id: number;
  type: string;
  assistantId: number | null;
  variables: Record<string, unknown>;
  maxSeconds: number | null;
  /** `balance` when the balance, not the assistant, sets the limit (billing/call-pricing.ts). */
  limitReason: string | null;
  /** The assistant's `max_call_duration`, for a call whose workflow has not set its limit. */
  maxDuration: number | null;
  endedAt: Date | null;
}

async function callWithLimit(knex: Knex, callId: number): Promise<CallRow | undefined> {
  const read = () => knex('calls as c').leftJoin('assistants as a', 'a.id', 'c.assistant_id').where('c.id', callId)
    .first<CallRow | undefined>('c.id', 'c.type', 'c.assistant_id', 'c.variables', 'c.max_seconds', 'c.limit_reason', 'a.max_duration', 'c.ended_at');
  const until = Date.now() + limitWaitMs;
  let row = await read();
  // The workflow's first step writes the limit, usually long before a browser has connected.
  while (row && row.maxSeconds === null && row.endedAt === null && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    row = await read();
  }
  return row;
}

/**
 * The media role's calls: a browser web call on `/media/web-call?token=…` runs the voice engine with the
 * call's assistant (the pipeline, or `providers.realtime` for a multimodal one), writes each turn to the call's row as it commits, and tells the call's workflow when the
 * call is answered and when it ends; `POST /media/calls/<id>/hangup` ends a live call when its workflow asks.
 * Past `MEDIA_MAX_CALLS` a new call is refused with 1013, so it can be placed again on another replica.
 */
export function createCallGateway(ctx: RoleContext, sessionUrl: () => string): CallGateway {
  const { config, providers, logger } = ctx;
  const knex = ctx.database.knex;
  const live = new Map<number, RunningCall>();
  // The language each live call is spoken in, for the goodbye of a hang-up its workflow asks for.
  const languages = new Map<number, string>();
  const liveCallsWatchers: (() => void)[] = [];
  const liveCallsChanged = () => liveCallsWatchers.forEach((watcher) => watcher());
  // Every call's greeting after the first of its assistant and voice is heard at once (voice/spoken-lines.ts).
  const spokenLines = new SpokenLineCache();
  let admitted = 0;
  let controlToken: string | undefined;
  const token = () => (controlToken ??= mediaControlToken(resolveAppKey(config, logger)));

  /**
   * What an assistant brings to a call: its profile, speech settings, ports and model, and its voice when this
   * deployment serves its synthesizer, otherwise the default synthesizer's own voice, so the call still speaks
   * (a voice id means nothing to another provider). Undefined when the assistant is gone.
   */
  async function assistantSetup(assistantId: number): Promise<AssistantSetup | undefined> {
    const [profile, stored] = await Promise.all([
      loadAgentProfile({ knex, secrets: providers.secrets }, { id: assistantId }),
      loadVoiceSettings(knex, { id: assistantId }),
    ]);
    if (!profile || !stored) return undefined;
    const served = stored.synthesizer ? providers.tts.forCode(stored.synthesizer) : undefined;
    const tts = readingAloud(served ?? providers.tts.default);
    if (!served && stored.synthesizer) logger.warn({ assistantId, synthesizer: stored.synthesizer }, 'the assistant\'s synthesizer is not configured here: speaking with the default voice');
    const settings = { ...stored, voiceId: served && stored.voiceId ? stored.voiceId : tts.defaultVoice };
    return {
      profile,
      settings,
      tts,
      ports: assistantPorts({ knex, embeddings: providers.embeddings, safeFetch: providers.fetch }, profile),
      modelName: settings.mode === 'multimodal'
        ? settings.realtimeModel ?? config.realtime?.defaultModel ?? ''
        : profile.modelName ?? config.llm.defaultModel,
    };
  }

  async function load(callId: number, from: 'browser' | 'carrier'): Promise<CallSetup> {
    const call = await callWithLimit(knex, callId);
    if (!call || call.assistantId === null) throw new NotFoundError('Call not found');
    if (call.endedAt) throw new RejectedError('This call has already ended.');
    const assistant = await assistantSetup(call.assistantId);
    if (!assistant) throw new NotFoundError('Assistant not found');
    await knex('calls').where({ id: callId }).update({ mediaSessionUrl: sessionUrl(), updatedAt: knex.fn.now() });
    const recording = assistant.settings.record
      ? await openRecordingSink(providers.storage, callId, async (key) => {
        const stored = await knex('calls').where({ id: callId }).update({ recordingKey: key, updatedAt: knex.fn.now() });
        // The call was deleted while it ran: its recording goes with it.
        if (stored === 0) await providers.storage.delete(key);
      })
      : undefined;
    const owner = { id: callId, userId: assistant.profile.userId };
    return {
      ...assistant,
      callId,
      tts: spokenLines.speaking(assistant.tts ?? providers.tts.default, [openingLine(assistant.profile, call.variables), ...Object.values(goodbyesIn(assistant.settings.ttsLanguage))]),
      variables: call.variables,
      maxSeconds: call.maxSeconds ?? call.maxDuration ?? 600,
      limitReason: call.limitReason === 'balance' ? 'balance_exhausted' : 'max_duration',
      // Only the calls Parley places can reach a machine; a web call or a caller ringing in is a person.
      screen: call.type === 'outbound',
      ...(recording ? { recording } : {}),
      ...(from === 'carrier' ? { phone: phoneLine({ knex, telephony: providers.telephony, publicUrl: config.publicUrl }, owner) } : {}),
      assistants: assistantLine({ knex, load: assistantSetup }, owner),
    };
  }

  /**
   * Runs one call on a media socket: `authorize` turns the stream's `start` into the call it opens, or throws;
   * the rest is the same for a browser and a carrier, but for the live transcript only browsers are sent, and
   * only a carrier's call can be transferred to a number.
   */
  function serveCall(socket: WebSocket, from: 'browser' | 'carrier', authorize: (start: StreamStart) => Promise<number>): void {
    const liveTranscript = from === 'browser';
    const llm = providers.llm;
    if (!llm) {
      const frame = closeFrameFor(new ServiceUnavailableError(NO_MODEL_MESSAGE));
      socket.close(frame.code, frame.reason);
      return;
    }
    if (admitted >= config.media.maxCalls) {
      callsRefused.inc();
      socket.close(1013, 'All lines are busy. Please try again in a minute.');
      return;
    }
    admitted++;
    callsInProgress.inc({ source: from });
    let callId: number | undefined;
    let turnsStored: Promise<void> = Promise.resolve();
    const call = runCallSession({
      socket,
      providers: { llm, stt: providers.stt, tts: providers.tts.default, vad: providers.vad, realtime: providers.realtime },
      liveTranscript,
      logger,
      async load(start) {
        callId = await authorize(start);
        live.set(callId, call);
        liveCallsChanged();
        const setup = await load(callId, from);
        languages.set(callId, setup.settings.ttsLanguage);
        return setup;
      },
      hooks: {
        onAnswered(at) {
          if (callId !== undefined) void signalCallAnswered(ctx.temporal, callId, at, logger);
        },
        onAnsweredBy(verdict) {
          if (callId === undefined) return;
          logger.info({ callId, answeredBy: verdict.answeredBy, cause: verdict.cause, phrase: verdict.phrase }, 'judged who answered the call');
          void signalAnsweredBy(ctx.temporal, callId, { answeredBy: verdict.answeredBy, source: 'engine', at: new Date().toISOString() }, logger);
        },
        // The engine's record as it is (voice/hooks.ts CallTurn): the row and the API show that same shape.
        onTurn(turn) {
          observeTurn(turn.metrics);
          if (callId === undefined) return;
          const id = callId;
          // One write after the other: turns are appended in the order they were said.
          turnsStored = turnsStored.then(() => knex('calls').where({ id })
            .update({ turns: knex.raw('turns || ?::jsonb', [JSON.stringify([turn])]), updatedAt: knex.fn.now() })
            .then(() => undefined, (error: unknown) => logger.error({ err: error, callId: id }, 'could not store a call turn')));
        },
        onEnded(reason) {
          admitted--;
          callsInProgress.dec({ source: from });
          if (callId === undefined) return;
          const id = callId;
          const endedAt = new Date();
          live.delete(id);
          languages.delete(id);
          liveCallsChanged();
          // The workflow builds the transcript from the stored turns as soon as it hears of the end: the last
          // turn (often the goodbye) must be on the row first.
          void turnsStored.then(() => signalCallEnded(ctx.temporal, id, reason, endedAt, logger));
        },
      },
    });
  }

  /** A browser's web call: the single-use credential of its `?token=`. */
  function webCall(socket: WebSocket, request: http.IncomingMessage): void {
    const credential = new URL(request.url ?? '/', 'http://media').searchParams.get('token') ?? '';
    serveCall(socket, 'browser', async () => {
      const redeemed = await redeemWebCallToken(knex, credential, new Date());
      if (!redeemed) throw new UnauthenticatedError('This call link has expired or was already used.');
      return redeemed.callId;
    });
  }

  /**
   * A phone call the carrier streams here once it is answered: the `callId` and `token` parameters its
   * `<Stream>` was given, the token being the app key's signature of the call's id.
   */
  function phoneCall(socket: WebSocket): void {
    serveCall(socket, 'carrier', (start) => {
      const callId = Number(start.customParameters.callId);
      const token = start.customParameters.token ?? '';
      if (!Number.isSafeInteger(callId) || callId <= 0 || !sameSecret(token, phoneStreamToken(providers.secrets, callId))) {
        return Promise.reject(new UnauthenticatedError('This media stream is not one Parley asked for.'));
      }
      return Promise.resolve(callId);
    });
  }

  /** `POST /media/calls/<id>/hangup` with the deployment's media control token: 204, or 404 when no such call is live here. */
  const hangUp: MediaRoute = (request, response) => {
    const match = /^\/media\/calls\/(\d{1,18})\/hangup$/.exec(new URL(request.url ?? '/', 'http://media').pathname);
    if (!match) return sendJson(response, 404, { message: 'Not Found.' });
    const presented = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
    if (!sameSecret(presented, token())) return sendJson(response, 401, { message: 'Unauthenticated.' });
    const call = live.get(Number(match[1]));
    if (!call) return sendJson(response, 404, { message: 'Call not found' });
    void readReason(request).then((reason) => {
      response.writeHead(204).end();
      // A time limit or an empty balance is said to the caller; any other end is a plain hang-up.
      const farewell = reason === 'max_duration' || reason === 'balance_exhausted' ? goodbyesIn(languages.get(Number(match[1])))[reason] : undefined;
      return call.hangUp(reason, farewell);
    }).catch((error: unknown) => logger.error({ err: error }, 'hang-up request failed'));
  };

  return {
    streams: { '/media/web-call': webCall, [PHONE_STREAM_PATH]: phoneCall },
    routes: { 'POST /media/calls/': hangUp },
    liveCalls: () => live.size,
    watchLiveCalls: (watcher) => liveCallsWatchers.push(watcher),
  };
}

function sameSecret(presented: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}

/** The reason of a hang-up request's JSON body (`{"reason": …}`, at most 1 KB), as an end reason of the engine. */
async function readReason(request: http.IncomingMessage): Promise<EndReason> {
  let body = '';
  for await (const chunk of request) {
    body += String(chunk);
    if (body.length > 1024) break;
  }
  let reason: unknown;
  try {
    reason = (JSON.parse(body) as { reason?: unknown }).reason;
  } catch {
    reason = undefined;
  }
  return (END_REASONS as readonly unknown[]).includes(reason) ? reason as EndReason : 'hangup_requested';
}
