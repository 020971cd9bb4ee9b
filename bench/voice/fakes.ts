/**
 * The fake providers of the voice benchmarks at their fixed delays, on a worker thread of the callers'
 * process (callers.ts), so the callers' work never makes a fake late and the platform is not charged for it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { startFakeDeepgramServer } from '../../test/fakes/deepgram-server.ts';
import { startFakeLlmServer } from '../../test/fakes/llm-server.ts';
import { startFakeSpeechServer } from '../../test/fakes/speech-server.ts';
import type { FakeDelays, FakeUrls } from './protocol.ts';

const delays = workerData as FakeDelays;
const llm = await startFakeLlmServer({ latencyMs: delays.llmMs, chunkSize: 8 });
llm.respond((request) => (request.tool_choice
  ? { toolCalls: [{ name: request.tool_choice.function.name, arguments: { status: true, summary: 'The caller asked questions.' } }] }
  : { reply: delays.reply, ...(delays.llmPieceMs ? { pieceDelayMs: delays.llmPieceMs } : {}) }));
const deepgram = await startFakeDeepgramServer({ resultDelayMs: delays.sttResultMs, idleTimeoutMs: 60_000 });
deepgram.respond(() => ({ text: delays.heard }));
const speech = await startFakeSpeechServer({ firstByteDelayMs: delays.ttsFirstByteMs });
const port = parentPort!;
port.postMessage({ llm: llm.baseUrl, deepgram: deepgram.url, deepgramKey: deepgram.apiKey, openaiSpeech: speech.openaiBaseUrl, openaiKey: speech.openaiKey } satisfies FakeUrls);
port.once('message', () => {
  void Promise.all([llm.close(), deepgram.close(), speech.close()]).then(() => port.close());
});
