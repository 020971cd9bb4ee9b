/**
 * A generated background for `ambient_sound`: noise shaped per kind, no asset files. Each kind is a noise
 * colour (white, pink or brown), an optional band and a slow or syllable-rate swell in level:
 * - office: pink noise, steady (air conditioning, distant keyboards);
 * - city: brown noise with a slow swell (traffic rumble);
 * - forest, nature: white noise above a few hundred Hz with a slow swell (wind in leaves);
 * - crowded_room, cafe: noise in the speech band swelling at syllable rate (a murmur of voices).
 * It mixes into each outbound frame, so the caller hears it during silence too. A few multiplications per
 * sample: well under a millisecond per 20 ms frame.
 */
import type { AmbientSound } from '../settings.ts';

interface Shape {
  colour: 'white' | 'pink' | 'brown';
  /** One-pole high-pass and low-pass coefficients (0 = off) limiting the band. */
  highPass: number;
  lowPass: number;
  /** Swell rate in Hz and depth 0..1. */
  swellHz: number;
  swellDepth: number;
  /** Level at volume 1, as a fraction of full scale. */
  level: number;
}

const shapes: Record<Exclude<AmbientSound, 'off'>, Shape> = {
  office: { colour: 'pink', highPass: 0, lowPass: 0, swellHz: 0, swellDepth: 0, level: 0.05 },
  city: { colour: 'brown', highPass: 0, lowPass: 0, swellHz: 0.08, swellDepth: 0.5, level: 0.12 },
  forest: { colour: 'white', highPass: 0.9, lowPass: 0.5, swellHz: 0.15, swellDepth: 0.7, level: 0.04 },
  nature: { colour: 'white', highPass: 0.85, lowPass: 0.6, swellHz: 0.1, swellDepth: 0.6, level: 0.04 },
  crowded_room: { colour: 'pink', highPass: 0.88, lowPass: 0.35, swellHz: 4, swellDepth: 0.5, level: 0.08 },
  cafe: { colour: 'pink', highPass: 0.9, lowPass: 0.4, swellHz: 3, swellDepth: 0.35, level: 0.06 },
};

/** A mixer adding `kind` at `volume` (0..1) into frames at `sampleRate`; stateful, one per call. */
export function ambientMixer(kind: Exclude<AmbientSound, 'off'>, volume: number, sampleRate: number, seed = 0x9e3779b9): (frame: Int16Array) => void {
  const shape = shapes[kind];
  const gain = shape.level * Math.min(Math.max(volume, 0), 1) * 32767;
  let state = seed >>> 0 || 1;
  // Paul Kellet's economy pink filter, a leaky integrator for brown, and the band's filter states.
  let p0 = 0, p1 = 0, p2 = 0, brown = 0, high = 0, lastInput = 0, low = 0;
  let phase = 0;
  const swellStep = (2 * Math.PI * shape.swellHz) / sampleRate;

  const white = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2147483648 - 1;
  };

  return (frame) => {
    if (gain === 0) return;
    for (let i = 0; i < frame.length; i++) {
      const w = white();
      let x: number;
      if (shape.colour === 'pink') {
        p0 = 0.99765 * p0 + w * 0.099046;
        p1 = 0.963 * p1 + w * 0.2965164;
        p2 = 0.57 * p2 + w * 1.0526913;
        x = (p0 + p1 + p2 + w * 0.1848) * 0.25;
      } else if (shape.colour === 'brown') {
        brown = 0.995 * brown + w * 0.05;
        x = brown * 2;
      } else {
        x = w;
      }
      if (shape.highPass > 0) {
        high = shape.highPass * (high + x - lastInput);
        lastInput = x;
        x = high;
      }
      if (shape.lowPass > 0) {
        low += shape.lowPass * (x - low);
        x = low;
      }
      phase += swellStep;
      if (phase > 2 * Math.PI) phase -= 2 * Math.PI;
      const swell = 1 - shape.swellDepth * 0.5 * (1 + Math.sin(phase));
      const mixed = frame[i]! + x * swell * gain;
      frame[i] = mixed > 32767 ? 32767 : mixed < -32768 ? -32768 : Math.round(mixed);
    }
  };
}
