import { describe, expect, it } from 'vitest';
import { decodeMulaw } from '../../src/lib/audio/mulaw.ts';
import { holdMusicSamples } from '../../src/providers/telephony/hold-music.ts';
import type { SynthesisRequest, TextToSpeech } from '../../src/providers/tts/types.ts';
import { holdMusicMulaw, speakForLine } from '../../src/sip/line-audio.ts';

/** A synthesizer that says each text as a second of a 440 Hz tone at 16 kHz, counting what it is asked. */
function toneSpeaker(): TextToSpeech & { asked: SynthesisRequest[] } {
  const asked: SynthesisRequest[] = [];
  return {
    name: 'tone', code: 'tone', defaultVoice: 'a-voice', asked,
    synthesize(request) {
      asked.push(request);
      const samples = Int16Array.from({ length: 16_000 }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 16_000)));
      async function* chunks() {
        yield samples.subarray(0, 8000);
        await Promise.resolve();
        yield samples.subarray(8000);
      }
      return { sampleRate: 16_000, chunks: chunks() };
    },
  };
}

describe('what the SIP gateway plays by itself', () => {
  it('speaks a text in the default voice as μ-law at 8 kHz, making each text once', async () => {
    const tts = toneSpeaker();
    const first = await speakForLine(tts, 'Sorry, nobody could take your call.');
    // A second at 8 kHz, give or take the resampler's filter delay.
    expect(first.length).toBeGreaterThan(7900);
    expect(first.length).toBeLessThanOrEqual(8000);
    const peak = Math.max(...decodeMulaw(first.subarray(2000, 6000)));
    expect(peak).toBeGreaterThan(7000);
    expect(await speakForLine(tts, 'Sorry, nobody could take your call.')).toBe(first);
    expect(tts.asked).toHaveLength(1);
    expect(tts.asked[0]).toMatchObject({ voice: 'a-voice', speed: 1 });
  });

  it('plays the hold music Twilio\'s callers hear, as μ-law', () => {
    const loop = holdMusicMulaw(40);
    const samples = holdMusicSamples(40, 8000);
    expect(loop.length).toBe(samples.length);
    const decoded = decodeMulaw(loop);
    // μ-law keeps each sample within a few percent of its value.
    for (const i of [1000, 50_000, 100_000]) expect(Math.abs(decoded[i]! - samples[i]!)).toBeLessThan(Math.abs(samples[i]!) * 0.07 + 40);
    expect(holdMusicMulaw(40)).toBe(loop);
  });
});
