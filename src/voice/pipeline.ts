/**
 * The speech pipeline of one call: listen → think → speak, each part in its own module.
 * - Listen (listening/): caller audio → voice activity detection (providers/vad) → the turn's words, decoded
 *   again as the turn grows (segment-transcriber.ts) or streamed (stream-transcriber.ts), and at each pause the
 *   turn model's score of the voice (providers/turn) → the turn policy (turns/turn-policy.ts): when to draft
 *   the reply, and when the turn is over (listener.ts).
 * - Think (session.ts, session-drafts.ts, reply.ts): the session commits the caller's turn and answers it with
 *   the dialogue core's turn (agent/turn.ts), drafted at the caller's pause and held until the turn is
 *   committed; tools run only then.
 * - Speak (speaker.ts, transports/pacer.ts): the reply's first clause, then its sentences, each synthesized as
 *   it comes (one ahead), resampled to 16 kHz, cut into 20 ms frames and sent in real time by the pacer, which
 *   can hold, resume or clear the audio when the caller speaks over it.
 * run.ts is the entry point: it takes the socket's transport and builds the session this module puts together.
 */
import type { LanguageModel } from '../providers/llm/types.ts';
import type { RealtimeModel } from '../providers/realtime/types.ts';
import type { SpeechToText } from '../providers/stt/types.ts';
import type { TextToSpeech } from '../providers/tts/types.ts';
import type { TurnDetector } from '../providers/turn/types.ts';
import type { VadFactory } from '../providers/vad/types.ts';
import type { Logger } from '../logger.ts';
import { FRAME_MS } from './audio/frames.ts';
import type { VoiceClock } from './clock.ts';
import type { CallHooks, EndReason } from './hooks.ts';
import { Listener } from './listening/listener.ts';
import type { ReplyContext } from './reply-context.ts';
import type { AssistantSetup, CallSetup } from './call-setup.ts';
import { CallSession } from './session.ts';
import { Speaker } from './speaker.ts';
import type { OutputPacer } from './transports/pacer.ts';

export interface VoiceProviders {
  llm: LanguageModel;
  stt: SpeechToText;
  tts: TextToSpeech;
  vad: VadFactory;
  /** The turn model; undefined: the end of a turn is decided by the silence and the words alone. */
  turn?: TurnDetector | undefined;
  /** The speech-to-speech model for `engine_type: multimodal`; undefined when none is configured. */
  realtime?: RealtimeModel | undefined;
}

export interface PipelineOptions {
  providers: VoiceProviders;
  setup: CallSetup;
  pacer: OutputPacer;
  /** How far ahead of real time the pacer sends audio. */
  leadMs: number;
  /** A tool running longer than this gets a spoken filler when fillers are on. */
  fillerAfterMs: number;
  hooks: CallHooks;
  clock: VoiceClock;
  logger: Logger;
  close: (reason: EndReason) => Promise<void>;
}

/** The session of a call on the speech pipeline, its parts built from the providers. */
export function pipelineSession(options: PipelineOptions): CallSession {
  const { providers, setup, pacer, clock, logger } = options;
  const { settings, assistants } = setup;
  /** The context an assistant's replies run in: its model, profile and tools, spoken in its voice. */
  const replyContext = (assistant: AssistantSetup): ReplyContext => {
    const voice = assistant.settings;
    let fillers = 0;
    return {
      model: providers.llm,
      modelName: assistant.modelName,
      profile: assistant.profile,
      ports: assistant.ports,
      variables: setup.variables,
      speaker: new Speaker({ tts: assistant.tts ?? providers.tts, pacer, settings: voice, clock, logger }),
      clock,
      logger,
      fillerAfterMs: voice.fillers && voice.fillerPhrases.length > 0 ? options.fillerAfterMs : undefined,
      nextFiller: () => voice.fillerPhrases[fillers++ % voice.fillerPhrases.length] ?? '',
    };
  };
  return new CallSession({
    settings,
    reply: replyContext(setup),
    createListener: (handlers) => new Listener({ stt: providers.stt, vad: providers.vad, turn: providers.turn, settings, clock, logger, handlers }),
    output: {
      clear: () => pacer.clear(),
      hold: () => pacer.hold(),
      resume: () => pacer.resume(),
      get holding() {
        return pacer.holding;
      },
      pendingMs: () => pacer.pendingFrames * FRAME_MS + options.leadMs,
    },
    maxCallMs: setup.maxSeconds * 1000,
    limitReason: setup.limitReason ?? 'max_duration',
    screen: setup.screen === true,
    hooks: options.hooks,
    clock,
    logger,
    close: options.close,
    ...(setup.phone ? { phone: setup.phone } : {}),
    ...(assistants
      ? {
        assistants: {
          check: (assistantId) => assistants.check(assistantId),
          async takeOver(assistantId) {
            const next = await assistants.load(assistantId);
            return { settings: next.settings, reply: replyContext(next) };
          },
        },
      }
      : {}),
  });
}
