import { createHash, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';
import type { WebSocket } from 'ws';
import { extendCallReservation } from '../billing/call-reservations.ts';
import { appendTurn } from '../calls/sessions.ts';
import { ServiceUnavailableError, UnauthenticatedError } from '../lib/errors.ts';
import { mediaControlToken, PHONE_STREAM_PATH, phoneStreamToken } from '../lib/media-control.ts';
import { resolveAppKey } from '../lib/app-key.ts';
import { NO_MODEL_MESSAGE } from '../resources/conversations/service.ts';
import { findWebCallToken, redeemWebCallToken } from '../resources/web-calls/service.ts';
import { signalAnsweredBy, signalCallAnswered, signalCallEnded } from '../temporal/call-signals.ts';
import { closeFrameFor } from '../voice/close-codes.ts';
import { END_REASONS, type EndReason } from '../voice/hooks.ts';
import { goodbyesIn } from '../voice/session.ts';
import { runCallSession, type RunningCall } from '../voice/run.ts';
import type { StreamStart } from '../voice/transports/media-stream.ts';
import { callsInProgress, callsRefused, observeTurn } from '../lib/metrics.ts';
import { createCallLoader, type LoadedCall } from './call-setup.ts';
import { keepReserved } from './call-reservations.ts';
import { sendJson, type MediaRoute, type StreamHandler } from './http-server.ts';
import { clientAddress, countRefusedCredential, createWaitingRoom } from './media-admission.ts';
import type { RoleContext } from './role.ts';

/** The live calls of this replica and the routes that serve them. */
export interface CallGateway {
  streams: Record<string, StreamHandler>;
  routes: Record<string, MediaRoute>;
  liveCalls: () => number;
  /** The ids of the calls this replica is running now. */
  liveCallIds: () => number[];
  /** Calls `watcher` each time this replica takes a call up or lets one go, its count changed. */
  watchLiveCalls: (watcher: () => void) => void;
}

const BUSY_TEXT = 'All lines are busy. Please try again in a minute.';

/** What proves a stream is one Parley asked for: its `start` checked without side effects, then spent. */
interface StreamCredential {
  /** The call the stream's `start` opens, or undefined when its credential does not verify. */
  verify(start: StreamStart): Promise<number | undefined>;
  /** Spends the credential for the call; false when another stream spent it first. */
  claim(callId: number): Promise<boolean>;
  /** What a stream whose credential does not verify is told (4401). */
  refusal: string;
}

/**
 * The media role's calls: a browser web call on `/media/web-call?token=…` runs the voice engine with the
 * call's assistant (the pipeline, or `providers.realtime` for a multimodal one), writes each turn to the call's row as it commits, and tells the call's workflow when the
 * call is answered and when it ends; `POST /media/calls/<id>/hangup` ends a live call when its workflow asks.
 * A line (of MEDIA_MAX_CALLS) is taken only by a stream whose `start` carries a credential that verifies; until
 * then a socket waits in a bounded waiting room (media-admission.ts) and holds nothing. Past MEDIA_MAX_CALLS a
 * call is refused with 1013, so it can be placed again on another replica.
 */
export function createCallGateway(ctx: RoleContext, sessionUrl: () => string): CallGateway {
  const { config, providers, logger } = ctx;
  const knex = ctx.database.knex;
  const live = new Map<number, RunningCall>();
  // The language each live call is spoken in, for the goodbye of a hang-up its workflow asks for.
  const languages = new Map<number, string>();
  const liveCallsWatchers: (() => void)[] = [];
  const liveCallsChanged = () => liveCallsWatchers.forEach((watcher) => watcher());
  const load = createCallLoader(ctx, sessionUrl);
  const waitingRoom = createWaitingRoom();
  // Lines taken by calls.
  let admitted = 0;
  let controlToken: string | undefined;
  const token = () => (controlToken ??= mediaControlToken(resolveAppKey(config, logger)));

  /**
   * Gives the stream whose `start` arrived a line, once its credential verifies: `verify` names the call it
   * opens without spending it (a stream with a forged credential never holds a line, even for a moment), and
   * `claim` spends it once a line is taken (two sockets presenting one web call's token: one gets the call).
   * All lines taken: refused with 1013, the credential unspent, so the call can be placed on another replica.
   */
  async function admit(start: StreamStart, credential: StreamCredential): Promise<number> {
    const callId = await credential.verify(start);
    if (callId === undefined) {
      countRefusedCredential();
      throw new UnauthenticatedError(credential.refusal);
    }
    if (admitted >= config.media.maxCalls) {
      callsRefused.inc();
      throw new ServiceUnavailableError(BUSY_TEXT);
    }
    admitted++;
    try {
      if (!(await credential.claim(callId))) throw new UnauthenticatedError(credential.refusal);
      return callId;
    } catch (error) {
      admitted--;
      if (error instanceof UnauthenticatedError) countRefusedCredential();
      throw error;
    }
  }

  /**
   * Runs one call on a media socket: `credential` turns the stream's `start` into the call it opens (admit);
   * the rest is the same for a browser and a carrier, but for the live transcript only browsers are sent, and
   * only a carrier's call can be transferred to a number.
   */
  function serveCall(socket: WebSocket, request: http.IncomingMessage, from: 'browser' | 'carrier', credential: StreamCredential): void {
    const liveTranscript = from === 'browser';
    const llm = providers.llm;
    if (!llm) {
      const frame = closeFrameFor(new ServiceUnavailableError(NO_MODEL_MESSAGE));
      socket.close(frame.code, frame.reason);
      return;
    }
    if (admitted >= config.media.maxCalls) {
      callsRefused.inc();
      socket.close(1013, BUSY_TEXT);
      return;
    }
    const waiting = waitingRoom.enter(socket, clientAddress(request, config.http.trustProxy));
    let callId: number | undefined;
    let loaded: LoadedCall | undefined;
    let reservation: { stop(): void } | undefined;
    let turnsStored: Promise<void> = Promise.resolve();
    const call = runCallSession({
      socket,
      providers: { llm, stt: providers.stt, tts: providers.tts.default, vad: providers.vad, turn: providers.turn, realtime: providers.realtime },
      liveTranscript,
      logger,
      async load(start) {
        waiting.started();
        callId = await admit(start, credential);
        callsInProgress.inc({ source: from });
        live.set(callId, call);
        liveCallsChanged();
        loaded = await load(callId, from);
        languages.set(callId, loaded.setup.settings.ttsLanguage);
        return loaded.setup;
      },
      hooks: {
        onAnswered(at) {
          if (callId === undefined) return;
          const id = callId;
          void signalCallAnswered(ctx.temporal, id, at, logger);
          if (loaded) {
            reservation = keepReserved({
              answeredAt: at.getTime(),
              reservedSeconds: loaded.reservedSeconds,
              maxSeconds: loaded.maxSeconds,
              extend: () => extendCallReservation(knex, id),
              runOut: () => void call.hangUp('balance_exhausted', goodbyesIn(languages.get(id)).balance_exhausted),
              logger: logger.child({ callId: id }),
            });
          }
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
          turnsStored = turnsStored.then(() => appendTurn(knex, id, turn)
            .catch((error: unknown) => logger.error({ err: error, callId: id }, 'could not store a call turn')));
        },
        onEnded(reason, at) {
          reservation?.stop();
          // A stream that never got a line (refused, or closed before its start) had nothing to give back.
          if (callId === undefined) return;
          admitted--;
          callsInProgress.dec({ source: from });
          const id = callId;
          const endedAt = at;
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
    const token = new URL(request.url ?? '/', 'http://media').searchParams.get('token') ?? '';
    serveCall(socket, request, 'browser', {
      refusal: 'This call link has expired or was already used.',
      verify: async () => (await findWebCallToken(knex, token, new Date()))?.callId,
      claim: async (callId) => (await redeemWebCallToken(knex, token, new Date()))?.callId === callId,
    });
  }

  /**
   * A phone call the carrier streams here once it is answered: the `callId` and `token` parameters its
   * `<Stream>` was given, the token being the app key's signature of the call's id.
   */
  function phoneCall(socket: WebSocket, request: http.IncomingMessage): void {
    serveCall(socket, request, 'carrier', {
      refusal: 'This media stream is not one Parley asked for.',
      verify(start) {
        const callId = Number(start.customParameters.callId);
        const signed = Number.isSafeInteger(callId) && callId > 0 && sameSecret(start.customParameters.token ?? '', phoneStreamToken(providers.secrets, callId));
        return Promise.resolve(signed ? callId : undefined);
      },
      claim: () => Promise.resolve(true),
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
    liveCallIds: () => [...live.keys()],
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
