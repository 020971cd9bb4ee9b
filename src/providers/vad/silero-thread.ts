/**
 * A worker thread holding Silero detectors for many calls (vad/threaded.ts starts it). It hears batches of
 * frames and answers each batch with what its detectors found, so the model's inference never runs on the
 * media role's event loop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createSileroVad, type SileroDetector } from './silero.ts';
import type { FromVadThread, ToVadThread, VadThreadData } from './thread-protocol.ts';

const port = parentPort;
if (!port) throw new Error('silero-thread.ts runs as a worker thread');

const factory = createSileroVad({ modelPath: (workerData as VadThreadData).modelPath });
const detectors = new Map<number, SileroDetector>();
let heard: FromVadThread & { type: 'heard' } = { type: 'heard', samples: 0, events: [] };

function send(message: FromVadThread, transfer: ArrayBuffer[] = []): void {
  port?.postMessage(message, transfer);
}

port.on('message', (message: ToVadThread) => {
  switch (message.type) {
    case 'open': {
      try {
        const id = message.id;
        detectors.set(id, factory.create(message.options, (event) => heard.events.push({ id, event })));
      } catch (error) {
        send({ type: 'failed', id: message.id, message: error instanceof Error ? error.message : String(error) });
      }
      return;
    }
    case 'close':
      detectors.get(message.id)?.close();
      detectors.delete(message.id);
      return;
    case 'audio': {
      let offset = 0;
      for (let i = 0; i < message.ids.length; i++) {
        const length = message.lengths[i] as number;
        const detector = detectors.get(message.ids[i] as number);
        const skipped = message.skipped[i] as number;
        if (detector && skipped > 0) detector.skip(skipped);
        detector?.push(message.samples.subarray(offset, offset + length));
        offset += length;
      }
      const answer = heard;
      answer.samples = message.samples.length;
      heard = { type: 'heard', samples: 0, events: [] };
      const buffers = answer.events.flatMap(({ event }) => (event.type === 'speech_end' ? [event.audio.buffer as ArrayBuffer] : []));
      send(answer, buffers);
    }
  }
});
