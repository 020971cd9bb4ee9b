/**
 * One utterance of the assistant through the speaker: a reply of the dialogue core (the agent turn streams
 * sentences, which are synthesized as they come), or a fixed text (the opening line, a goodbye). Both run on
 * the handle's signal, so an interruption stops the model request, its tools and the synthesis together.
 */
import type { AgentPorts, CallLine } from '../agent/ports.ts';
import type { AgentProfile } from '../agent/profile.ts';
import { SentenceSplitter } from '../agent/sentences.ts';
import { buildTurnInput, type HistoryEntry } from '../agent/turn-input.ts';
import { AgentTurn } from '../agent/turn.ts';
import type { Logger } from '../logger.ts';
import type { LanguageModel } from '../providers/llm/types.ts';
import type { AsyncQueue } from './async-queue.ts';
import { untilAborted } from '../lib/abort.ts';
import { dtmfTones } from './audio/dtmf.ts';
import { INTERNAL_SAMPLE_RATE } from './audio/frames.ts';
import type { VoiceClock } from './clock.ts';
import type { Speaker, SpeechItem, SpeechTimings } from './speaker.ts';
import { MARK_GRACE_MS, type SentenceTrack, type SpeechHandle } from './speech.ts';
import type { Keypad } from './turns/keypad.ts';

export interface ReplyContext {
  model: LanguageModel;
  modelName: string;
  profile: AgentProfile;
  ports: AgentPorts;
  variables: Record<string, unknown>;
  speaker: Speaker;
  clock: VoiceClock;
  logger: Logger;
  /** A tool running longer than this gets a spoken acknowledgement (once per reply); undefined: never. */
  fillerAfterMs: number | undefined;
  nextFiller: () => string;
}

export interface ReplyOutcome {
  endCall: boolean;
  timings: SpeechTimings;
  llmRequestedAt: number | undefined;
  firstTokenAt: number | undefined;
}

/** The call's line as the session lends it to a reply, for the line tools. */
export interface SessionLine {
  keypad: Keypad;
}

/** How often a wait for a track to be heard looks again. */
const HEARD_POLL_MS = 50;

/**
 * Resolves once the track has been heard (its mark came back, or, when marks are lost, its audio has been
 * queued in full and its time plus a grace has passed) or the signal aborted.
 */
async function heard(track: SentenceTrack, clock: VoiceClock, signal: AbortSignal): Promise<void> {
  const lost = () => track.complete && track.firstDueAt !== undefined && clock.now() > track.firstDueAt + track.queuedMs + MARK_GRACE_MS;
  while (!track.heard && !lost() && !signal.aborted) await new Promise<void>((resolve) => clock.setTimeout(resolve, HEARD_POLL_MS));
}

/**
 * The line port of one reply: what the tools do on the line happens in the order of the reply's speech (tones
 * after the words before them, a keypad entry timing out only once the question before it has been heard).
 */
function replyLine(line: SessionLine, handle: SpeechHandle, sentences: AsyncQueue<SpeechItem>, clock: VoiceClock): CallLine {
  const speaking = () => sentences.size > 0 || handle.sentences.some((sentence) => !sentence.heard);
  return {
    collectDigits: (options, signal) => line.keypad.collect({ ...options, speaking, signal }),
    sendDigits: (keys, signal) => {
      const samples = dtmfTones(keys, INTERNAL_SAMPLE_RATE);
      const played = new Promise<SentenceTrack>((resolve) => sentences.push({ samples, onTrack: resolve })).then((track) => heard(track, clock, signal));
      return untilAborted(played, signal);
    },
  };
}

/** Speaks the model's answer to `message`, given the history before it; the line tools act on `line` when given. */
export async function speakReply(
  context: ReplyContext, handle: SpeechHandle, input: { history: HistoryEntry[]; message: string }, line?: SessionLine,
): Promise<ReplyOutcome> {
  const { clock, profile } = context;
  const { sentences, done } = context.speaker.utterance(handle);
  const ports: AgentPorts = line ? { ...context.ports, line: replyLine(line, handle, sentences, clock) } : context.ports;
  const outcome: ReplyOutcome = { endCall: false, timings: { ttsRequestedAt: undefined, ttsFirstChunkAt: undefined, firstFrameSentAt: undefined }, llmRequestedAt: undefined, firstTokenAt: undefined };
  const running = new Set<string>();
  let filler: { cancel(): void } | undefined;
  let fillerSpoken = false;
  try {
    const turnInput = await buildTurnInput(ports, profile, { variables: context.variables, history: input.history, message: input.message }, handle.signal);
    outcome.llmRequestedAt = clock.now();
    const turn = new AgentTurn({
      model: context.model, modelName: context.modelName, temperature: profile.temperature, ...turnInput, signal: handle.signal, now: context.ports.now,
    });
    for await (const event of turn) {
      switch (event.type) {
        case 'token':
          outcome.firstTokenAt ??= clock.now();
          break;
        case 'sentence':
          sentences.push(event.text);
          break;
        case 'tool_started':
          // A tool waiting on the caller's keys needs the line quiet, not a filler.
          if (turnInput.tools.find((tool) => tool.definition.name === event.name)?.onLine) break;
          running.add(event.name);
          if (context.fillerAfterMs !== undefined && !fillerSpoken && !filler) {
            filler = clock.setTimeout(() => {
              if (running.size === 0 || handle.signal.aborted) return;
              fillerSpoken = true;
              sentences.push(context.nextFiller());
            }, context.fillerAfterMs);
          }
          break;
        case 'tool_finished':
          running.delete(event.call.name);
          if (running.size === 0) {
            filler?.cancel();
            filler = undefined;
          }
          break;
        case 'end_call':
          outcome.endCall = true;
          break;
      }
    }
  } catch (error) {
    if (!handle.signal.aborted) context.logger.warn({ err: error }, 'the assistant could not answer');
  } finally {
    filler?.cancel();
    sentences.end();
  }
  outcome.timings = await done;
  return outcome;
}

/** Speaks a fixed text, sentence by sentence. */
export async function speakText(speaker: Speaker, handle: SpeechHandle, text: string): Promise<SpeechTimings> {
  const { sentences, done } = speaker.utterance(handle);
  const splitter = new SentenceSplitter();
  splitter.push(text);
  splitter.end();
  for (let sentence = splitter.next(); sentence !== undefined; sentence = splitter.next()) sentences.push(sentence);
  sentences.end();
  return done;
}
