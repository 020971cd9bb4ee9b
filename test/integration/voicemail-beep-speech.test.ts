import { describe, expect, it } from 'vitest';
import { VOICEMAIL_GREETING } from '../../src/simulators/sandbox-carrier/callees.ts';
import { beep } from '../../src/simulators/sandbox-carrier/voice.ts';
import { decodeMulaw, encodeMulaw } from '../../src/lib/audio/mulaw.ts';
import { Resampler } from '../../src/lib/audio/resampler.ts';
import { BeepDetector, type BeepEvent } from '../../src/voice/voicemail/beep.ts';
import { speechInstalled, speechSkipReason, spokenPcm } from '../support/speech.ts';

/** 16 kHz audio as the engine hears it from a carrier: down to the line's 8 kHz μ-law and back. */
function overThePhone(samples: Int16Array): Int16Array {
  const line = new Resampler(16000, 8000).process(samples);
  return new Resampler(8000, 16000).process(decodeMulaw(encodeMulaw(line)));
}

function beepsIn(samples: Int16Array): BeepEvent[] {
  const detector = new BeepDetector({ sampleRate: 16000 });
  const found: BeepEvent[] = [];
  for (let offset = 0; offset + 320 <= samples.length; offset += 320) {
    const event = detector.push(samples.subarray(offset, offset + 320), offset / 16);
    if (event) found.push(event);
  }
  return found;
}

/** Real synthesized speech (espeak-ng, several voices) against the beep detector: what the sandbox's voicemail box plays. */
describe.skipIf(!speechInstalled)(`the beep detector on synthesized speech over a phone line${speechInstalled ? '' : ` (${speechSkipReason})`}`, () => {
  it.each(['en-us', 'en-us+m3', 'en-us+f3', 'en-gb'])('hears no beep in a voicemail greeting spoken by %s, and the box\'s beep after it', async (voice) => {
    const greeting = await spokenPcm(`${VOICEMAIL_GREETING} Or press one to page Sam, or stay on the line.`, { voice, silenceMs: 200 });
    expect(beepsIn(overThePhone(greeting))).toEqual([]);
    const box = new Resampler(8000, 16000).process(beep());
    const joined = new Int16Array(greeting.length + box.length + 3200);
    joined.set(greeting);
    joined.set(box, greeting.length);
    const found = beepsIn(overThePhone(joined));
    expect(found.map((event) => event.type)).toEqual(['beep_started', 'beep_ended']);
    expect(found[1]).toMatchObject({ frequencyHz: 1000 });
    // It ends where the greeting's audio plus 400 ms of beep ends, to a frame or two.
    expect(Math.abs(found[1]!.atMs - ((greeting.length + box.length) / 16))).toBeLessThanOrEqual(40);
  });
});
