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
