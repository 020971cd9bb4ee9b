/**
 * DTMF tones (ITU-T Q.23): each key is the sum of one low ("row") and one high ("column") frequency, played
 * in-band like any other outbound audio. A key sounds for 100 ms and is followed by 100 ms of silence, above
 * the minimums receivers are built for (Q.24: 40 ms each), with a short ramp at both ends so the tone starts
 * and stops without a click that would spread energy to other frequencies.
 */

/** The keys a keypad sends, and `w`: a half-second pause (as Twilio's `<Play digits>` reads it). */
export const DTMF_KEYS = /^[0-9*#A-Dw]+$/;

const ROWS = [697, 770, 852, 941] as const;
const COLUMNS = [1209, 1336, 1477, 1633] as const;
const LAYOUT = ['123A', '456B', '789C', '*0#D'] as const;

/** The low and high frequency of a key, in Hz. */
export function dtmfFrequencies(key: string): [number, number] {
  for (const [row, keys] of LAYOUT.entries()) {
    const column = keys.indexOf(key);
    if (column >= 0 && key.length === 1) return [ROWS[row]!, COLUMNS[column]!];
  }
  throw new RangeError(`${JSON.stringify(key)} is not a DTMF key.`);
}

export interface DtmfTiming {
  toneMs: number;
  gapMs: number;
  /** How long `w` waits. */
  pauseMs: number;
}

export const DTMF_TIMING: DtmfTiming = { toneMs: 100, gapMs: 100, pauseMs: 500 };

/** Peak of each of the two frequencies: together about -6 dBFS, loud enough to detect, clear of clipping. */
const AMPLITUDE = 0.25 * 32767;
const RAMP_MS = 5;

/** The tones of `keys` as PCM16 at `sampleRate`; throws a RangeError for anything but DTMF keys and `w`. */
export function dtmfTones(keys: string, sampleRate: number, timing: DtmfTiming = DTMF_TIMING): Int16Array {
  if (!DTMF_KEYS.test(keys)) throw new RangeError(`Only the keys 0-9, *, #, A-D and w (a pause) can be sent, not ${JSON.stringify(keys)}.`);
  const perMs = sampleRate / 1000;
  const toneSamples = Math.round(timing.toneMs * perMs);
  const gapSamples = Math.round(timing.gapMs * perMs);
  const pauseSamples = Math.round(timing.pauseMs * perMs);
  const rampSamples = Math.round(RAMP_MS * perMs);
  let total = 0;
  for (const key of keys) total += key === 'w' ? pauseSamples : toneSamples + gapSamples;
  const samples = new Int16Array(total);
  let offset = 0;
  for (const key of keys) {
    if (key === 'w') {
      offset += pauseSamples;
      continue;
    }
    const [low, high] = dtmfFrequencies(key);
    for (let i = 0; i < toneSamples; i++) {
      const ramp = Math.min(1, i / rampSamples, (toneSamples - 1 - i) / rampSamples);
      const t = i / sampleRate;
      samples[offset + i] = Math.round(ramp * AMPLITUDE * (Math.sin(2 * Math.PI * low * t) + Math.sin(2 * Math.PI * high * t)));
    }
    offset += toneSamples + gapSamples;
  }
  return samples;
}
