/**
 * The hold music of a warm transfer, generated rather than downloaded (no asset to license or fetch): a calm
 * loop of four chords (C, A minor, F, G), each two seconds of arpeggiated eighth notes on a soft
 * electric-piano tone over a low pad, played twice, the second time an octave higher. It is served as a
 * telephone-rate WAV (8 kHz, 16-bit mono) that carriers play in a loop while the caller waits.
 */
import { wavHeader } from '../../lib/audio/wav.ts';

export const HOLD_MUSIC_SAMPLE_RATE = 8000;

/** The loudest sample at volume 100, as a fraction of full scale: music under speech level, never clipping. */
export const HOLD_MUSIC_FULL_LEVEL = 0.5;

const BAR_SECONDS = 2;
const NOTES_PER_BAR = 8;

/** The chords' tones as MIDI notes: root position triads, arpeggiated up and back down. */
const CHORDS = [
  [60, 64, 67],
  [57, 60, 64],
  [53, 57, 60],
  [55, 59, 62],
];

const hz = (midi: number) => 440 * 2 ** ((midi - 69) / 12);

/** The raw mix of one pass at `octave` (0 or 1) into `out` from `offset`, unscaled. */
function renderPass(out: Float64Array, offset: number, octave: number, sampleRate: number): void {
  const noteSamples = Math.round((BAR_SECONDS / NOTES_PER_BAR) * sampleRate);
  const barSamples = noteSamples * NOTES_PER_BAR;
  CHORDS.forEach((chord, bar) => {
    const pattern = [chord[0]!, chord[1]!, chord[2]!, chord[0]! + 12, chord[2]!, chord[1]!, chord[0]!, chord[1]!];
    const barStart = offset + bar * barSamples;
    // The pad: the chord's root two octaves down, swelling in and out over the bar.
    const padHz = hz(chord[0]! - 24);
    for (let i = 0; i < barSamples; i++) {
      const swell = Math.sin((Math.PI * i) / barSamples);
      out[barStart + i]! += 0.25 * swell * Math.sin((2 * Math.PI * padHz * i) / sampleRate);
    }
    pattern.forEach((midi, step) => {
      const frequency = hz(midi + 12 * octave);
      const start = barStart + step * noteSamples;
      // Each note rings on past its eighth, decaying, as a struck note does.
      const length = Math.min(noteSamples * 3, out.length - start);
      for (let i = 0; i < length; i++) {
        const t = i / sampleRate;
        const attack = Math.min(1, i / (0.005 * sampleRate));
        const envelope = attack * Math.exp(-t * 4);
        const phase = 2 * Math.PI * frequency * t;
        out[start + i]! += 0.5 * envelope * (Math.sin(phase) + 0.3 * Math.sin(2 * phase));
      }
    });
  });
}

/** The loop's samples at `volume` (0 to 100): silence at 0, the peak rising in proportion to the volume. */
export function holdMusicSamples(volume: number, sampleRate = HOLD_MUSIC_SAMPLE_RATE): Int16Array {
  const passSamples = Math.round((BAR_SECONDS / NOTES_PER_BAR) * sampleRate) * NOTES_PER_BAR * CHORDS.length;
  const mix = new Float64Array(passSamples * 2);
  renderPass(mix, 0, 0, sampleRate);
  renderPass(mix, passSamples, 1, sampleRate);
  let peak = 0;
  for (const sample of mix) peak = Math.max(peak, Math.abs(sample));
  const gain = ((Math.min(Math.max(volume, 0), 100) / 100) * HOLD_MUSIC_FULL_LEVEL * 32767) / peak;
  return Int16Array.from(mix, (sample) => Math.round(sample * gain));
}

const cache = new Map<number, Buffer>();

/** The loop at `volume` (an integer 0 to 100) as a WAV file; each volume is generated once per process. */
export function holdMusicWav(volume: number): Buffer {
  const known = cache.get(volume);
  if (known) return known;
  const samples = holdMusicSamples(volume);
  const data = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
  const wav = Buffer.concat([wavHeader(data.byteLength, HOLD_MUSIC_SAMPLE_RATE), data]);
  cache.set(volume, wav);
  return wav;
}

/** The peak level of a PCM16 WAV's samples (0 to 1), for a listener checking what it was played; 0 for no audio. */
export function wavPeak(wav: Buffer): number {
  if (wav.length <= 44 || wav.toString('ascii', 0, 4) !== 'RIFF') return 0;
  let peak = 0;
  for (let offset = 44; offset + 1 < wav.length; offset += 2) peak = Math.max(peak, Math.abs(wav.readInt16LE(offset)));
  return peak / 32767;
}
