/**
 * The worker thread of the turn model (turn/smart-turn.ts starts it): one ONNX session of Smart Turn v3.2,
 * fed Whisper features computed here. Requests that wait while the model runs go through it together, as one
 * batch, when it is free again: with many calls pausing at once a batch costs less than its requests one by one.
 */
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { N_FRAMES, N_MELS, WhisperFeatures } from './features.ts';
import type { FromTurnThread, ToTurnThread, TurnThreadData } from './thread-protocol.ts';

interface OrtTensor {
  data: Float32Array;
}
interface OrtModule {
  Tensor: new (type: 'float32', data: Float32Array, dims: number[]) => OrtTensor;
  InferenceSession: {
    create(path: string, options: Record<string, unknown>): Promise<{ run(feeds: Record<string, OrtTensor>): Promise<Record<string, OrtTensor>> }>;
  };
}

const port = parentPort;
if (!port) throw new Error('smart-turn-thread.ts runs as a worker thread');
const { modelPath, maxBatch } = workerData as TurnThreadData;
const ort = createRequire(import.meta.url)('onnxruntime-node') as OrtModule;
const loading = ort.InferenceSession.create(modelPath, { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all' });
loading.catch(() => undefined);
const features = new WhisperFeatures();
const waiting = new Map<number, Int16Array>();
let running = false;

port.on('message', (message: ToTurnThread) => {
  if (message.type === 'cancel') {
    waiting.delete(message.id);
    return;
  }
  waiting.set(message.id, message.audio);
  if (!running) void run();
});

async function run(): Promise<void> {
  running = true;
  try {
    const session = await loading.catch((error: unknown) => error as Error);
    while (waiting.size > 0) {
      const batch = [...waiting].slice(0, maxBatch);
      for (const [id] of batch) waiting.delete(id);
      if (session instanceof Error) {
        for (const [id] of batch) send({ type: 'failed', id, message: `the turn model could not load: ${session.message}` });
        continue;
      }
      const started = performance.now();
      const input = new Float32Array(batch.length * N_MELS * N_FRAMES);
      batch.forEach(([, audio], row) => input.set(features.compute(audio), row * N_MELS * N_FRAMES));
      try {
        const output = await session.run({ input_features: new ort.Tensor('float32', input, [batch.length, N_MELS, N_FRAMES]) });
        const probabilities = Object.values(output)[0]!.data;
        const ms = performance.now() - started;
        batch.forEach(([id], row) => send({ type: 'scored', id, probability: probabilities[row] as number, ms }));
      } catch (error) {
        for (const [id] of batch) send({ type: 'failed', id, message: error instanceof Error ? error.message : String(error) });
      }
      // Messages that came while the model ran are read before the next batch is taken.
      await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    running = false;
  }
}

function send(message: FromTurnThread): void {
  port?.postMessage(message);
}
