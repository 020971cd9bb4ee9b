/**
 * What a CallSession is made of and says on its own: the parts the entry point (run.ts) builds it from, and
 * the fixed sentences of the engine.
 */
import { languagePack, type GoodbyeReason } from '../lib/languages/index.ts';
import type { Logger } from '../logger.ts';
import type { VoiceClock } from './clock.ts';
import type { CallHooks, EndReason } from './hooks.ts';
import type { AssistantLine, PhoneLine } from './line.ts';
import type { Listener, ListenerHandlers } from './listening/listener.ts';
import type { ReplyContext } from './reply-context.ts';
import type { VoiceSettings } from './settings.ts';

/** The words the engine says on its own in a language (BCP 47), when no model turn is involved: lib/languages. */
export function goodbyesIn(language: string | undefined): Readonly<Record<GoodbyeReason, string>> {
  return languagePack(language).goodbyes;
}

/** What the model is asked in a language when the caller has been silent a while and the assistant sets nothing. */
export function reengageInstructionIn(language: string | undefined): string {
  return languagePack(language).reengageInstruction;
}

/** The English lines, which the engine says where no language is known. */
export const GOODBYES = goodbyesIn('en');
export const REENGAGE_INSTRUCTION = reengageInstructionIn('en');
export { MARK_GRACE_MS } from './speech.ts';

export type SessionState = 'listening' | 'thinking' | 'speaking' | 'ended';

/** The call's outbound audio as the session steers it (transports/pacer.ts). */
export interface SessionOutput {
  /** Drops the queued audio and tells the far side to drop its own. */
  clear(): void;
  /** Stops the audio where the caller is (they spoke over it), keeping what they have not heard, until resume() or clear(). */
  hold(): void;
  resume(): void;
  readonly holding: boolean;
  /** How long the audio queued and on its way takes to play. */
  pendingMs(): number;
}

/** What a session is made of; the entry point (run.ts) builds it. */
export interface SessionParts {
  /** The speaking assistant's settings and reply context: another assistant's once it has taken the call over. */
  settings: VoiceSettings;
  reply: ReplyContext;
  createListener: (handlers: ListenerHandlers) => Listener;
  output: SessionOutput;
  maxCallMs: number;
  /** What the limit is: the assistant's longest call, or what the balance pays for; the goodbye says which. */
  limitReason: 'max_duration' | 'balance_exhausted';
  /** Judge who answered, a person or a machine (an outbound phone call): voicemail/screening.ts. */
  screen: boolean;
  hooks: CallHooks;
  clock: VoiceClock;
  logger: Logger;
  /** Releases the transport, the pacer and the recorder once the session has ended. */
  close: (reason: EndReason) => Promise<void>;
  /** A phone call's carrier, which can hand the call over; absent on web calls. */
  phone?: PhoneLine;
  /** The owner's other assistants, which can take the call over. */
  assistants?: AssistantLine;
}
