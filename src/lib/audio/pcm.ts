/**
 * 16-bit PCM as bytes (little-endian: what goes over the wire and into files), as samples (what the engine
 * computes on) and as floats in [-1, 1] (what the ONNX models take and give). Views share memory where the
 * bytes are aligned: a conversion per 20 ms frame must not copy.
 */

const hostIsLittleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * The samples of little-endian PCM16 bytes: a view over the same memory when the bytes start on an even
 * offset of a little-endian host, a copy otherwise. A trailing odd byte is half a sample: refused.
 */
export function pcm16FromBytes(bytes: Uint8Array): Int16Array {
  if (bytes.length % 2 !== 0) throw new RangeError(`PCM16 needs an even number of bytes, got ${bytes.length}.`);
  if (hostIsLittleEndian && bytes.byteOffset % 2 === 0) {
    return new Int16Array(bytes.buffer, bytes.byteOffset, bytes.length / 2);
  }
  const samples = new Int16Array(bytes.length / 2);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(i * 2, true);
  return samples;
}

/** The little-endian bytes of PCM16 samples: a view over the same memory on a little-endian host. */
export function pcm16ToBytes(samples: Int16Array): Buffer {
  if (hostIsLittleEndian) return Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
  const bytes = Buffer.alloc(samples.byteLength);
  for (let i = 0; i < samples.length; i++) bytes.writeInt16LE(samples[i]!, i * 2);
  return bytes;
}

/** Float samples in [-1, 1] (what the ONNX models take and give) as PCM16, clipped. */
export function floatToPcm16(samples: Float32Array): Int16Array {
  const pcm = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i += 1) {
    const value = Math.round((samples[i] as number) * 32768);
    pcm[i] = value > 32767 ? 32767 : value < -32768 ? -32768 : value;
  }
  return pcm;
}

/** PCM16 samples as floats in [-1, 1), written into `into` from `at`. */
export function pcm16ToFloat(samples: Int16Array, into: Float32Array, at = 0): void {
  for (let i = 0; i < samples.length; i += 1) into[at + i] = (samples[i] as number) / 32768;
}
