import type { SafeFetch } from '../lib/safe-fetch.ts';

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

/** A passage of a knowledge base, as a search finds it. */
export interface Passage {
  documentName: string;
  text: string;
  score: number;
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

/**
 * A warm transfer to a supervisor (`warm_call_transfer`), its texts with their defaults: the caller hears
 * `holdMessage` then hold music while the supervisor is rung; the supervisor hears `briefingInitialMessage` and
 * a summary written by the model after `summaryInstructions`; the caller hears `connectedMessage` once bridged.
 */
export interface SupervisorTransfer {
  /** E.164; or a SIP URI (`custom_sip`), reachable on calls through a SIP trunk. */
  supervisorPhone: string;
  /** The account's number the supervisor is called from. */
  outboundPhoneId: number;
  /** Who the supervisor sees calling: the outbound number, the customer's, or `customCallerId`. */
  callerIdMode: 'outbound_number' | 'customer_number' | 'custom';
  customCallerId: string | undefined;
  /** 0 to 100; undefined: the caller waits in silence (`hold_music: none`). */
  holdMusicVolume: number | undefined;
  holdMessage: string;
  summaryInstructions: string;
  briefingInitialMessage: string;
  connectedMessage: string;
}

/** Where a conversation goes when a transfer ends it here, once the assistant's closing words have been heard. */
export type Handoff =
  | {
    kind: 'phone';
    phoneNumber: string;
    /** Said to the person answering before the caller is connected (a warm transfer); undefined for a cold one. */
    whisper: string | undefined;
  }
  | { kind: 'assistant'; assistantId: number; message: string | undefined; greet: boolean }
  /** A warm transfer: the hold message is said and the briefing written by the session, then the carrier takes over. */
  | { kind: 'supervisor'; transfer: SupervisorTransfer };
