import { describe, expect, it } from 'vitest';
import type { SynthesisRequest, TextToSpeech } from '../../src/providers/tts/types.ts';
import { SpokenLineCache } from '../../src/voice/spoken-lines.ts';
import { toneTts } from '../support/speech-doubles.ts';

const OPENING = 'Hello, this is Parley calling. How are you today?';

function request(text: string, overrides: Partial<SynthesisRequest> = {}): SynthesisRequest {
  return { text, voice: 'tone-voice', language: 'en-US', speed: 1, signal: new AbortController().signal, ...overrides };
}

async function samplesOf(tts: TextToSpeech, asked: SynthesisRequest): Promise<number[]> {
  const samples: number[] = [];
  for await (const chunk of tts.synthesize(asked).chunks) samples.push(...chunk);
  return samples;
}

describe('the spoken-line cache', () => {
  it('synthesizes a sentence of a fixed line once, and replays the same audio to the next call', async () => {
    const tts = toneTts();
    const cache = new SpokenLineCache();
    const first = await samplesOf(cache.speaking(tts, [OPENING]), request('Hello, this is Parley calling.'));
    const second = await samplesOf(cache.speaking(tts, [OPENING]), request('Hello, this is Parley calling.'));
    expect(second).toEqual(first);
    expect(first.length).toBeGreaterThan(0);
    expect(tts.requests.map((asked) => asked.text)).toEqual(['Hello, this is Parley calling.']);
  });

  it('synthesizes every other sentence each time, and keeps lines apart by voice and speed', async () => {
    const tts = toneTts();
    const cache = new SpokenLineCache();
    const speaking = cache.speaking(tts, [OPENING]);
    await samplesOf(speaking, request('Sure, I can help.'));
    await samplesOf(speaking, request('Sure, I can help.'));
    await samplesOf(speaking, request('How are you today?'));
    await samplesOf(speaking, request('How are you today?', { speed: 1.2 }));
    await samplesOf(speaking, request('How are you today?', { voice: 'other-voice' }));
    await samplesOf(speaking, request('How are you today?'));
    expect(tts.requests.map((asked) => `${asked.text} ${asked.voice} ${asked.speed}`)).toEqual([
      'Sure, I can help. tone-voice 1',
      'Sure, I can help. tone-voice 1',
      'How are you today? tone-voice 1',
      'How are you today? tone-voice 1.2',
      'How are you today? other-voice 1',
    ]);
  });

  it('lets calls asking for a line while it is made hear that one synthesis, whoever leaves first', async () => {
    const tts = toneTts();
    const cache = new SpokenLineCache();
    const leaving = new AbortController();
    const first = cache.speaking(tts, [OPENING]).synthesize(request(OPENING, { signal: leaving.signal })).chunks;
    const second = samplesOf(cache.speaking(tts, [OPENING]), request(OPENING));
    // The call that started the synthesis hangs up after its first chunk; the other still hears all of it.
    for await (const _chunk of first) leaving.abort();
    const heard = await second;
    expect(heard).toEqual(await samplesOf(cache.speaking(tts, [OPENING]), request(OPENING)));
    expect(heard.length).toBeGreaterThan(22050 * 0.5);
    expect(tts.requests).toHaveLength(1);
  });

  it('fails every call hearing a synthesis that fails, and keeps nothing of it', async () => {
    let attempts = 0;
    const failing: TextToSpeech = {
      name: 'failing', code: 'failing', defaultVoice: 'v',
      synthesize: () => ({
        sampleRate: 16000,
        chunks: (async function* () {
          attempts++;
          yield new Int16Array(160);
          await new Promise((resolve) => setTimeout(resolve, 5));
          throw new Error('the synthesizer broke');
        })(),
      }),
    };
    const cache = new SpokenLineCache();
    const both = [samplesOf(cache.speaking(failing, [OPENING]), request(OPENING)), samplesOf(cache.speaking(failing, [OPENING]), request(OPENING))];
    for (const heard of both) await expect(heard).rejects.toThrow('the synthesizer broke');
    await expect(samplesOf(cache.speaking(failing, [OPENING]), request(OPENING))).rejects.toThrow('the synthesizer broke');
    expect(attempts).toBe(2);
  });

  it('keeps nothing of a synthesis that was stopped', async () => {
    const tts = toneTts();
    const cache = new SpokenLineCache();
    const stop = new AbortController();
    const chunks = cache.speaking(tts, [OPENING]).synthesize(request(OPENING, { signal: stop.signal })).chunks;
    for await (const _chunk of chunks) stop.abort();
    await samplesOf(cache.speaking(tts, [OPENING]), request(OPENING));
    expect(tts.requests).toHaveLength(2);
  });

  it('drops the line heard least recently when the audio kept would pass its bound', async () => {
    const tts = toneTts({ msPerChar: 10 });
    // toneTts speaks 22050 samples a second, 2 bytes each: a 10-character line is 0.1 s, 4410 bytes.
    const cache = new SpokenLineCache(10_000);
    const lines = ['Line one..', 'Line two..', 'Line three'];
    const speaking = cache.speaking(tts, lines);
    await samplesOf(speaking, request(lines[0]!));
    await samplesOf(speaking, request(lines[1]!));
    await samplesOf(speaking, request(lines[0]!));
    await samplesOf(speaking, request(lines[2]!));
    await samplesOf(speaking, request(lines[0]!));
    await samplesOf(speaking, request(lines[1]!));
    expect(tts.requests.map((asked) => asked.text)).toEqual([lines[0], lines[1], lines[2], lines[1]]);
  });
});
