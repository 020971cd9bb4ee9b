/**
 * G.711 μ-law (ITU-T G.711, the carrier's 8 kHz telephone codec): one byte per sample, a sign bit, a 3-bit
 * segment and a 4-bit step, stored inverted. Linear samples are 16-bit PCM; the codec's 14-bit range is
 * reached through the usual bias of 132 and a clip at 32635, so 0 encodes to 0xFF and full scale to 0x80/0x00.
 * Both directions are table look-ups: they run on every 20 ms frame of every call.
 */

const BIAS = 0x84;
const CLIP = 32635;

/** The linear value of each of the 256 codes. */
const decodeTable = new Int16Array(256);
for (let code = 0; code < 256; code++) {
  const inverted = ~code & 0xff;
  const segment = (inverted >> 4) & 0x07;
  const magnitude = ((((inverted & 0x0f) << 3) + BIAS) << segment) - BIAS;
  decodeTable[code] = inverted & 0x80 ? -magnitude : magnitude;
}

function encodeSample(sample: number): number {
  const sign = sample < 0 ? 0x80 : 0;
  const biased = Math.min(sign ? -sample : sample, CLIP) + BIAS;
  // The segment is the position of the highest set bit above bit 7 (biased values stay below 2^15).
  const segment = 31 - Math.clz32(biased >> 7);
  const step = (biased >> (segment + 3)) & 0x0f;
  return ~(sign | (segment << 4) | step) & 0xff;
}

/** The code of every 16-bit sample, indexed by the sample's two's-complement bits (64 KiB, built once). */
const encodeTable = new Uint8Array(65536);
for (let bits = 0; bits < 65536; bits++) encodeTable[bits] = encodeSample((bits << 16) >> 16);

/** μ-law bytes to 16-bit linear samples. */
export function decodeMulaw(bytes: Uint8Array): Int16Array {
  const samples = new Int16Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) samples[i] = decodeTable[bytes[i]!]!;
  return samples;
}

/** 16-bit linear samples to μ-law bytes. */
export function encodeMulaw(samples: Int16Array): Uint8Array {
  const bytes = new Uint8Array(samples.length);
  for (let i = 0; i < samples.length; i++) bytes[i] = encodeTable[samples[i]! & 0xffff]!;
  return bytes;
}
