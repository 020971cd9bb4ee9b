/**
 * The line of a call as the line tools act on it: the caller's keypad, tones played towards the far end, and
 * for a phone call the carrier that can hand the call over. The session lends it to each reply, whose tools
 * act in the order of the reply's speech.
 */
import type { CallLine, SupervisorTransfer } from '../agent/ports.ts';
import { untilAborted } from '../lib/abort.ts';
import type { AsyncQueue } from '../lib/async-queue.ts';
import { dtmfTones } from './audio/dtmf.ts';
import { INTERNAL_SAMPLE_RATE } from './audio/frames.ts';
import type { VoiceClock } from './clock.ts';
import type { SpeechItem } from './speaker.ts';
import { MARK_GRACE_MS, type SentenceTrack, type SpeechHandle } from './speech.ts';
import type { ReplyContext } from './reply-context.ts';
import type { VoiceSettings } from './settings.ts';
import type { Keypad } from './turns/keypad.ts';

/** A phone call's carrier, as the media role provides it; a web call has none. */
export interface PhoneLine {
  /** Throws, with a reason to tell the caller, when the call cannot be transferred to `phoneNumber`. */
  checkTransfer(phoneNumber: string): Promise<void>;
  /**
   * Hands the live call over to `to`: the carrier ends the media stream and connects the caller there, the
   * person answering hearing `whisper` first when given. Resolves once the carrier has taken the call.
   */
  transfer(request: { to: string; whisper: string | undefined }): Promise<void>;
  /**
   * Hands the live call over to a supervisor (a warm transfer): the carrier holds the caller (the media
   * stream ends) while the supervisor is rung and hears `briefing`, then bridges them. Resolves once the
   * carrier has taken the call; the outcome is recorded on the call as the carrier reports it. `language` is the
   * call's (BCP 47), which the briefing is written in.
   */
  warmTransfer(request: { transfer: SupervisorTransfer; briefing: string; summarySource: 'model' | 'last_turns'; language?: string }): Promise<void>;
}

/** The owner's other assistants, which can take the call over (`assistant_transfer`). */
export interface AssistantLine {
  /** Throws, with a reason to tell the caller, when the assistant cannot take the call. */
  check(assistantId: number): Promise<void>;
  /** The assistant taking over: its speech settings and the context its replies run in (its voice's speaker). */
  takeOver(assistantId: number): Promise<{ settings: VoiceSettings; reply: ReplyContext }>;
}

/** The call's line as the session lends it to its replies. */
export interface SessionLine {
  keypad: Keypad;
  phone: PhoneLine | undefined;
  assistants: AssistantLine | undefined;
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
export function replyLine(line: SessionLine, handle: SpeechHandle, sentences: AsyncQueue<SpeechItem>, clock: VoiceClock): CallLine {
  const speaking = () => sentences.size > 0 || handle.sentences.some((sentence) => !sentence.heard);
  const { phone, assistants } = line;
  return {
    collectDigits: (options, signal) => line.keypad.collect({ ...options, speaking, signal }),
    sendDigits: (keys, signal) => {
      const samples = dtmfTones(keys, INTERNAL_SAMPLE_RATE);
      const played = new Promise<SentenceTrack>((resolve) => sentences.push({ samples, onTrack: resolve })).then((track) => heard(track, clock, signal));
      return untilAborted(played, signal);
    },
    ...(phone ? { checkTransfer: (phoneNumber: string) => phone.checkTransfer(phoneNumber) } : {}),
    ...(assistants ? { checkAssistant: (assistantId: number) => assistants.check(assistantId) } : {}),
  };
}
