import type { SafeFetch } from '../lib/safe-fetch.ts';
import type { Passage } from './tools.ts';

/**
 * What the dialogue core reaches the world through, built by its caller for one assistant: the core itself
 * knows no database, no HTTP client and no clock of its own.
 */
export interface AgentPorts {
  /** Passages of the assistant's knowledge base for a query, best first (at most `PASSAGES_PER_SEARCH`). */
  searchKnowledge: (query: string, signal: AbortSignal) => Promise<Passage[]>;
  /** The guarded client that mid-call HTTP tools call their endpoints through. */
  fetch: SafeFetch;
  /** Milliseconds on a monotonic clock: times the tool calls. */
  now: () => number;
  /** The line of a voice call, which the line tools act on; absent in a text chat, where they are not offered. */
  line?: CallLine;
}

/** How many passages one knowledge search hands the model. */
export const PASSAGES_PER_SEARCH = 5;

/** The keys a caller typed for `collect_keypad`, and what ended the entry. */
export interface KeypadEntry {
  /** The digits, without the stop key. */
  digits: string;
  endedBy: 'stop_key' | 'timeout';
}

/** The phone line under a voice call, as the line tools act on it (the voice engine provides it, per reply). */
export interface CallLine {
  /**
   * Collects the keys the caller presses (DTMF) until `stopKey`, or until `timeoutMs` pass without a key once
   * the assistant has stopped speaking. The signal (the caller barging in) abandons the entry.
   */
  collectDigits(options: { timeoutMs: number; stopKey: '#' | '*' }, signal: AbortSignal): Promise<KeypadEntry>;
  /**
   * Presses keys towards the far end (an automated menu): their DTMF tones play after what the assistant is
   * saying, and the promise resolves once they have been played. `keys`: 0-9, *, #, A-D, and w for a pause.
   */
  sendDigits(keys: string, signal: AbortSignal): Promise<void>;
  /**
   * Present where the call can be handed over to a phone number (a phone call, not a web call): throws, with
   * a reason the model can tell the caller, when `phoneNumber` cannot be called (the account's dialing rules).
   */
  checkTransfer?: (phoneNumber: string) => Promise<void>;
  /**
   * Present where the call can be handed over to another assistant: throws, with a reason, when the assistant
   * cannot take it (gone, or one this engine cannot run).
   */
  checkAssistant?: (assistantId: number) => Promise<void>;
}
