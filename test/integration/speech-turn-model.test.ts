import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Resampler } from '../../src/lib/audio/resampler.ts';
import { createLogger } from '../../src/logger.ts';
import { createPiperTts } from '../../src/providers/tts/piper.ts';
import { createSmartTurn, SMART_TURN_MODEL } from '../../src/providers/turn/smart-turn.ts';
import { speechDir, speechInstalled, speechSkipReason } from '../support/speech.ts';

const logger = createLogger({ log: { level: 'silent', pretty: false } });

describe.skipIf(!speechInstalled)(`Smart Turn v3.2 on its thread${speechInstalled ? '' : ` (${speechSkipReason})`}`, () => {
  const turn = createSmartTurn({ modelPath: path.join(speechDir, SMART_TURN_MODEL), logger });
  const piper = createPiperTts({ voicesDir: path.join(speechDir, 'piper'), instances: 1, logger });
  afterAll(async () => {
    piper.close();
    await turn.close?.();
  });

  /** `text` in the Piper voice at 16 kHz, as a caller's turn to a pause: 200 ms before, 100 ms of silence after. */
  async function clip(text: string): Promise<Int16Array> {
    const speech = piper.synthesize({ text, voice: 'en_US-joe-medium', language: 'en-US', speed: 1, signal: new AbortController().signal });
    const resampler = new Resampler(speech.sampleRate, 16000);
    const parts: Int16Array[] = [];
    for await (const chunk of speech.chunks) parts.push(resampler.process(chunk));
    const voice = new Int16Array(parts.reduce((sum, part) => sum + part.length, 0));
    let at = 0;
    for (const part of parts) {
      voice.set(part, at);
      at += part.length;
    }
    let end = voice.length;
    while (end > 0 && Math.abs(voice[end - 1]!) < 300) end--;
    const audio = new Int16Array(3200 + end + 1600);
    audio.set(voice.subarray(0, end), 3200);
    return audio;
  }

  /**
   * The turn model's score of `text` said five times, the median: Piper samples its voice's noise, so no two
   * sayings are alike, and a short answer's score spreads ("No thanks." scored 0.47-0.94 over eight, "Yes."
   * 0.40-0.97 over sixteen). The median is what the model makes of the words, not of one saying.
   */
  async function medianScore(text: string, signal: AbortSignal): Promise<number> {
    const scores: number[] = [];
    for (let saying = 0; saying < 5; saying++) scores.push(await turn.score(await clip(text), signal));
    return scores.sort((a, b) => a - b)[2]!;
  }

  it('hears a finished answer as complete and a thought broken off as incomplete', async () => {
    const signal = new AbortController().signal;
    for (const text of ['No, thank you.', 'Yes.', 'My account number is four five six seven.']) {
      expect(await medianScore(text, signal), text).toBeGreaterThan(0.5);
    }
    for (const text of ['I want the', 'I was wondering if']) {
      expect(await medianScore(text, signal), text).toBeLessThan(0.5);
    }
  }, 60_000);

  it('scores pauses of several calls at once, and drops a request whose caller went on', async () => {
    // Answers whose every saying scores well clear of the middle (over sixteen: 0.80 and up, 0.013 and down).
    const [done, broken] = await Promise.all([clip('No, thank you.'), clip('I was wondering if')]);
    const gone = new AbortController();
    const scores = [turn.score(done, new AbortController().signal), turn.score(broken, gone.signal), turn.score(broken, new AbortController().signal)];
    gone.abort(new Error('the caller went on'));
    const [first, second, third] = await Promise.allSettled(scores);
    expect(first).toMatchObject({ status: 'fulfilled' });
    expect((first as PromiseFulfilledResult<number>).value).toBeGreaterThan(0.5);
    expect(second).toMatchObject({ status: 'rejected', reason: new Error('the caller went on') });
    expect((third as PromiseFulfilledResult<number>).value).toBeLessThan(0.5);
  }, 60_000);

  it('says how to install the model when it is missing', async () => {
    const missing = createSmartTurn({ modelPath: '/nonexistent/smart-turn.onnx', logger });
    await expect(missing.score(new Int16Array(1600), new AbortController().signal)).rejects.toThrow(/not installed .*install-speech\.sh/);
    await missing.close?.();
  });
});
