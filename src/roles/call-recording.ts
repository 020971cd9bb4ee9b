import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FileStorage } from '../providers/storage/index.ts';
import type { RecordingSink } from '../voice/audio/recorder.ts';

/** Where a call's recording is stored. */
export function recordingKey(callId: number): string {
  return `calls/${callId}/recording.wav`;
}

/**
 * A call's recording on its way to file storage: chunks go to a scratch file while the call runs (so memory
 * stays flat and the final header can be written in place), and the finished WAV is moved into storage under
 * `recordingKey`. `onStored` hears the key once the file is there.
 */
export async function openRecordingSink(storage: FileStorage, callId: number, onStored: (key: string) => Promise<void>): Promise<RecordingSink> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-recording-'));
  const scratch = path.join(dir, 'recording.wav');
  const file = await fs.open(scratch, 'w');
  const discard = async () => {
    await file.close().catch(() => undefined);
    await fs.rm(dir, { recursive: true, force: true });
  };
  return {
    async write(chunk) {
      await file.write(chunk);
    },
    async finish(header) {
      try {
        await file.write(header, 0, header.length, 0);
        await file.close();
        const key = recordingKey(callId);
        await storage.writeStream(key, createReadStream(scratch));
        await onStored(key);
      } finally {
        await discard();
      }
    },
  };
}
