/**
 * A worker thread holding the voice activity detection of many calls (vad/threaded.ts starts it): it hears
 * batches of frames and answers each with what they led to, so the model never runs on the media role's
 * event loop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { SileroStreams } from './silero-streams.ts';
import type { FromVadThread, ToVadThread, VadThreadData } from './thread-protocol.ts';

const port = parentPort;
if (!port) throw new Error('silero-thread.ts runs as a worker thread');

const loading = SileroStreams.load((workerData as VadThreadData).modelPath);
// A model that cannot load answers every detector asked for with its reason; restarting would not help.
loading.then(() => send({ type: 'ready' }), () => send({ type: 'ready' }));

port.on('message', (message: ToVadThread) => {
  void loading.then((silero) => handle(silero, message), (error: unknown) => {
    if (message.type === 'open') send({ type: 'failed', id: message.id, message: error instanceof Error ? error.message : String(error) });
    if (message.type === 'audio') send({ type: 'heard', events: [] });
  });
});

async function handle(silero: SileroStreams, message: ToVadThread): Promise<void> {
  switch (message.type) {
    case 'open':
      try {
        silero.open(message.id, message.options);
      } catch (error) {
        send({ type: 'failed', id: message.id, message: error instanceof Error ? error.message : String(error) });
      }
      return;
    case 'close':
      silero.close(message.id);
      return;
    case 'audio': {
      let offset = 0;
      const frames = Array.from(message.ids, (id, i) => {
        const length = message.lengths[i] as number;
        const frame = { id, samples: message.samples.subarray(offset, offset + length), skipped: message.skipped[i] as number };
        offset += length;
        return frame;
      });
      const events = await silero.hear(frames);
      const buffers = events.flatMap(({ event }) => (event.type === 'speech_end' ? [event.audio.buffer as ArrayBuffer] : []));
      send({ type: 'heard', events }, buffers);
    }
  }
}

function send(message: FromVadThread, transfer: ArrayBuffer[] = []): void {
  port?.postMessage(message, transfer);
}
