/** The messages between the media role and a VAD thread (vad/threaded.ts and vad/silero-thread.ts). */
import type { VadEvent, VadOptions } from './types.ts';

export interface VadThreadData {
  modelPath: string;
}

export type ToVadThread =
  | { type: 'open'; id: number; options: VadOptions }
  | { type: 'close'; id: number }
  /** Frames of many detectors in one buffer: frame i is `lengths[i]` samples for `ids[i]`, after `skipped[i]` dropped ones. */
  | { type: 'audio'; ids: Int32Array; lengths: Int32Array; skipped: Int32Array; samples: Int16Array };

export type FromVadThread =
  /** The answer to one `audio` message (answers come in order): the events its frames led to. */
  | { type: 'heard'; events: { id: number; event: VadEvent }[] }
  | { type: 'failed'; id: number; message: string }
  /** The model has loaded (or failed to): from now on the thread keeps up, or is behind. */
  | { type: 'ready' };
