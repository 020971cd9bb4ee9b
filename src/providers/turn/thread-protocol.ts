/** The messages between the media role and the turn model's thread (turn/smart-turn.ts, turn/smart-turn-thread.ts). */

export interface TurnThreadData {
  modelPath: string;
  /** The most requests scored in one run of the model. */
  maxBatch: number;
}

export type ToTurnThread =
  | { type: 'score'; id: number; audio: Int16Array }
  /** The request's caller no longer waits: dropped unless the model is already on it. */
  | { type: 'cancel'; id: number };

export type FromTurnThread =
  | { type: 'scored'; id: number; probability: number; ms: number }
  | { type: 'failed'; id: number; message: string };
