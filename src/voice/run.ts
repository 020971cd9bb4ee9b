/**
 * The voice engine's entry point for the media role: one call on one media WebSocket. It waits for the
 * stream's `start`, asks the caller to `load` what the call needs (profile, settings, ports, time limit), and
 * runs a CallSession until the call ends, or for a multimodal assistant a RealtimeCallSession over the
 * speech-to-speech model (refused with provider_unavailable when none is configured). Errors before the
 * session runs close the socket with their close code (close-codes.ts).
 */
import type { WebSocket } from 'ws';
import { DomainError, ServiceUnavailableError } from '../lib/errors.ts';
import type { Logger } from '../logger.ts';
import { ambientMixer } from './audio/ambient.ts';
import { INTERNAL_SAMPLE_RATE, samplesPerFrame } from './audio/frames.ts';
import { CallRecorder } from './audio/recorder.ts';
import type { CallSetup } from './call-setup.ts';
import { systemVoiceClock, type VoiceClock } from './clock.ts';
import type { CallHooks, EndReason } from './hooks.ts';
import { pipelineSession, type VoiceProviders } from './pipeline.ts';
import { REALTIME_OUTPUT_FRAMES, RealtimeCallSession } from './realtime/session.ts';
import type { CallSession, SessionState } from './session.ts';
import { MediaStreamTransport, type StreamStart } from './transports/media-stream.ts';
import { DEFAULT_LEAD_MS, OutputPacer } from './transports/pacer.ts';

export type { AssistantSetup, CallSetup } from './call-setup.ts';

/** Knobs for tests and benchmarks; production uses the defaults. */
export interface EngineTuning {
  /** How far ahead of real time audio is sent. */
  leadMs?: number;
  /** A tool running longer than this gets a spoken filler when fillers are on. */
  fillerAfterMs?: number;
}

export type { VoiceProviders } from './pipeline.ts';

export interface RunCallOptions {
  socket: WebSocket;
  providers: VoiceProviders;
  load: (start: StreamStart) => Promise<CallSetup>;
  hooks?: CallHooks;
  clock?: VoiceClock;
  logger: Logger;
  tuning?: EngineTuning;
  /** Send each committed turn to the far side as a `transcript` event (browser web calls; never to a carrier). */
  liveTranscript?: boolean;
}

export interface RunningCall {
  /** Resolves with the reason once the call has ended. */
  ended: Promise<EndReason>;
  /**
   * Ends the call from outside (a hang-up request, the balance ran out), saying `farewell` first when given;
   * before the session runs, the socket is closed at once.
   */
  hangUp(reason: EndReason, farewell?: string): Promise<void>;
  /** What the session is doing: listening, thinking, speaking; `starting` until it runs. */
  state(): SessionState | 'starting';
}

const FILLER_AFTER_MS = 1000;

export const NO_REALTIME_MESSAGE = 'No speech-to-speech model is configured for multimodal assistants. Set REALTIME_URL or REALTIME_API_KEY.';

/** What runs a call once it started: the pipeline's CallSession or a speech-to-speech model's RealtimeCallSession. */
type ServedSession = Pick<CallSession, 'hear' | 'markHeard' | 'endNow' | 'hangUp' | 'start' | 'ended' | 'state'> & Partial<Pick<CallSession, 'keypress'>>;

/** Serves one call on `socket`; resolves at once with a handle on it. */
export function runCallSession(options: RunCallOptions): RunningCall {
  const clock = options.clock ?? systemVoiceClock;
  const transport = new MediaStreamTransport(options.socket, options.logger);
  let session: ServedSession | undefined;
  let pendingHangUp: EndReason | undefined;
  let endedEarly: ((reason: EndReason) => void) | undefined;
  const early = new Promise<EndReason>((resolve) => {
    endedEarly = resolve;
  });

  // A hang-up asked for before the session ran closes the socket; the call ends for the reason asked.
  const endBeforeSession = (reason: EndReason) => {
    const final = pendingHangUp ?? reason;
    options.hooks?.onEnded?.(final, new Date());
    endedEarly?.(final);
  };

  void (async () => {
    let start: StreamStart;
    try {
      start = await transport.started;
    } catch (error) {
      // The socket broke the protocol before `start` (the transport closed it with the error's code), or closed.
      endBeforeSession(error instanceof DomainError ? 'error' : 'customer_hangup');
      return;
    }
    let setup: CallSetup;
    try {
      setup = await options.load(start);
    } catch (error) {
      transport.fail(error);
      endBeforeSession('error');
      return;
    }
    const logger = options.logger.child({ ...(setup.callId === undefined ? {} : { callId: setup.callId }), callSid: start.callSid, streamSid: start.streamSid });
    if (setup.settings.mode === 'multimodal' && !options.providers.realtime) {
      transport.fail(new ServiceUnavailableError(NO_REALTIME_MESSAGE));
      endBeforeSession('error');
      return;
    }
    if (!transport.open) {
      endBeforeSession('customer_hangup');
      return;
    }
    const { session: built, recorder, pacer } = buildSession(options, transport, setup, clock, logger);
    session = built;
    // Started first, so that it hears what the caller said while the call loaded (the transport kept it).
    built.start();
    transport.listen({
      audio: (frame, held) => {
        // The recording starts now: audio from before is heard but not recorded, so both sides stay in step.
        if (!held) recorder?.inbound(frame);
        built.hear(frame);
      },
      mark: (name) => {
        if (!pacer.isPending(name)) built.markHeard(name);
      },
      dtmf: (digit) => {
        if (built.keypress) built.keypress(digit);
        else logger.debug({ digit }, 'a key pressed on a speech-to-speech call: ignored');
      },
      ended: (failed) => void built.endNow(failed ? 'error' : 'customer_hangup'),
    });
    endedEarly?.(await built.ended);
  })();

  return {
    ended: early,
    state: () => session?.state ?? 'starting',
    async hangUp(reason, farewell) {
      if (session) return session.hangUp(reason, farewell);
      pendingHangUp = reason;
      transport.close();
      return Promise.resolve();
    },
  };
}

function buildSession(
  options: RunCallOptions, transport: MediaStreamTransport, setup: CallSetup, clock: VoiceClock, logger: Logger,
): { session: ServedSession; recorder: CallRecorder | undefined; pacer: OutputPacer } {
  const { settings } = setup;
  const realtime = settings.mode === 'multimodal' ? options.providers.realtime : undefined;
  const recorder = settings.record && setup.recording ? new CallRecorder(setup.recording, { clock }) : undefined;
  const frameSamples = samplesPerFrame(INTERNAL_SAMPLE_RATE);
  const leadMs = options.tuning?.leadMs ?? DEFAULT_LEAD_MS;
  const pacer = new OutputPacer({
    frame(samples, dueAt) {
      transport.sendFrame(samples);
      recorder?.outbound(samples, dueAt);
    },
    mark: (name) => transport.sendMark(name),
    clear: () => transport.sendClear(),
  }, {
    clock,
    leadMs,
    frameSamples,
    ...(realtime ? { capacityFrames: REALTIME_OUTPUT_FRAMES } : {}),
    ...(settings.ambientSound !== 'off' && settings.ambientVolume > 0
      ? { background: ambientMixer(settings.ambientSound, settings.ambientVolume, INTERNAL_SAMPLE_RATE) }
      : {}),
  });
  const hooks: CallHooks = options.liveTranscript
    ? {
      ...options.hooks,
      onTurn(turn) {
        // The browser's transcript shows what was said; a handover is not something said.
        if (turn.role !== 'handover') transport.sendTranscript(turn.role, turn.text);
        options.hooks?.onTurn?.(turn);
      },
    }
    : options.hooks ?? {};
  const close = async () => {
    pacer.close();
    try {
      await recorder?.finish();
    } finally {
      transport.close();
    }
  };
  if (realtime) {
    const session = new RealtimeCallSession({
      model: realtime, modelName: setup.modelName, settings, profile: setup.profile, ports: setup.ports, variables: setup.variables,
      pacer, maxCallMs: setup.maxSeconds * 1000, limitReason: setup.limitReason ?? 'max_duration', hooks, clock, logger, close,
    });
    return { session, recorder, pacer };
  }
  const session = pipelineSession({
    providers: options.providers, setup, pacer, leadMs, fillerAfterMs: options.tuning?.fillerAfterMs ?? FILLER_AFTER_MS, hooks, clock, logger, close,
  });
  return { session, recorder, pacer };
}
