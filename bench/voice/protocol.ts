/** The messages between a voice benchmark's platform process and its callers' process (callers.ts). */
import type { CallerLine } from './caller-audio.ts';

export type { CallerLine } from './caller-audio.ts';

/** The fixed delays of the fake providers. */
export interface FakeDelays {
  /** The language model's first token, from the request. */
  llmMs: number;
  /** Between the model's pieces of 8 characters after the first. */
  llmPieceMs?: number;
  /** The Deepgram fake's delay on each message. */
  sttResultMs: number;
  /** The speech fake's delay before its first audio byte. */
  ttsFirstByteMs: number;
  /** What the model answers every turn. */
  reply: string;
  /** What the Deepgram fake hears in every stretch of speech. */
  heard: string;
}

export interface FakeUrls {
  llm: string;
  deepgram: string;
  deepgramKey: string;
  openaiSpeech: string;
  openaiKey: string;
}

export interface CallPlan {
  apiUrl: string;
  token: string;
  assistantId: number;
  calls: number;
  /** Calls start evenly spread over this many milliseconds. */
  rampMs: number;
  /** Each call says lines until this long after it started, then hangs up. */
  durationMs: number;
  /** At most this many lines per call. */
  maxTurns: number;
  /** The pause after the assistant's reply before the next line, drawn evenly between the two. */
  pauseMs: [number, number];
  lines: CallerLine[];
  /** After a reply starts, wait this long for more turns (a fragment answered, the rest of the line) before the next line. */
  settleMs?: number;
}

/**
 * A call that interrupts the assistant: after the greeting the caller says `opening`, then `rounds` times, once
 * the reply has played `afterMs` of sound, says `interruption` over it (its reply is the next one interrupted).
 */
export interface BargeInPlan {
  apiUrl: string;
  token: string;
  assistantId: number;
  opening: CallerLine;
  interruption: CallerLine;
  rounds: number;
  afterMs: number;
}

export type CallerRequest = { type: 'fakes'; delays: FakeDelays } | { type: 'run'; plan: CallPlan } | { type: 'barge-in'; plan: BargeInPlan } | { type: 'exit' };

export interface TurnResult {
  /** Index of the line said. */
  line: number;
  /** The caller's end of speech → the first reply audio frame received after it. */
  feltMs: number | undefined;
  /** The caller's turns the platform committed from the line's start until its reply settled (`transcript` events). */
  userTurns: string[];
  /** Reply audio frames (with sound) received while the caller was still saying the line. */
  replyWhileSpeaking: number;
}

export interface CallResult {
  callId: number;
  /** The caller's `start` → the first greeting audio frame received. */
  greetingMs: number | undefined;
  turns: TurnResult[];
  /** |spacing − 20 ms| of the reply frames as they arrived, past each reply's first burst. */
  jitterMs: number[];
  error?: string;
}

/** One interruption, timed from the caller's first voiced frame of it (its onset). */
export interface BargeInRound {
  /** Onset → the `clear` received. */
  clearMs: number;
  /** Onset → the last reply audio frame received before the clear (negative if the reply had stopped before). */
  lastFrameMs: number;
  /** Reply audio frames received after the clear while the caller was still speaking (the engine sends none). */
  framesAfterClear: number;
}

export interface BargeInReply {
  callId: number;
  rounds: BargeInRound[];
  error?: string;
}

/** A run's calls, and the CPU the callers' process (callers and fake providers) used over its wall time. */
export interface RunReply {
  results: CallResult[];
  cpuMs: number;
  wallMs: number;
}

export type CallerReply = { urls: FakeUrls } | RunReply | BargeInReply | { error: string };
