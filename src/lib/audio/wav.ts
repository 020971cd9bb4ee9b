/** WAV files of PCM16 mono: their header, whole files, and a WAV read as it streams in. */

/**
 * The 44-byte header of a PCM16 mono WAV with `dataBytes` of samples. Sizes past what the format holds are
 * written as its largest, as a recording of unknown length is before it ends.
 */
export function wavHeader(dataBytes: number, sampleRate: number): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(Math.min(36 + dataBytes, 0xffffffff), 4);
  header.write('WAVEfmt ', 8, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(Math.min(dataBytes, 0xffffffff), 40);
  return header;
}

/** A RIFF/WAVE file of PCM16 mono samples: the 44-byte header, then the samples little-endian. */
export function wavFile(samples: Int16Array, sampleRate: number): Uint8Array<ArrayBuffer> {
  const file = new Uint8Array(44 + samples.length * 2);
  file.set(wavHeader(samples.length * 2, sampleRate));
  const view = new DataView(file.buffer);
  for (let i = 0; i < samples.length; i++) view.setInt16(44 + i * 2, samples[i]!, true);
  return file;
}

/**
 * Reads a streamed WAV: the RIFF header, then every byte after the `data` chunk's header is PCM (a program
 * writing to a pipe puts a placeholder length there, as a stream cannot know it). Checks the format is mono
 * PCM16 at the rate promised.
 */
export class WavStream {
  private header: Buffer | undefined = Buffer.alloc(0);
  private odd: Buffer | undefined;
  private readonly sampleRate: number;

  constructor(sampleRate: number) {
    this.sampleRate = sampleRate;
  }

  /** The samples in `bytes`, or an error when the header is not mono PCM16 at the expected rate. */
  push(bytes: Buffer): Int16Array | Error {
    let data = bytes;
    if (this.header) {
      this.header = Buffer.concat([this.header, bytes]);
      const parsed = parseHeader(this.header, this.sampleRate);
      if (parsed === undefined) return new Int16Array(0);
      if (parsed instanceof Error) return parsed;
      data = this.header.subarray(parsed);
      this.header = undefined;
    }
    if (this.odd) {
      data = Buffer.concat([this.odd, data]);
      this.odd = undefined;
    }
    if (data.length % 2 === 1) {
      this.odd = Buffer.from(data.subarray(data.length - 1));
      data = data.subarray(0, data.length - 1);
    }
    // Copied into an aligned buffer of its own: the chunk outlives the pipe's buffer and needs 2-byte alignment.
    const samples = new Int16Array(data.length / 2);
    Buffer.from(samples.buffer).set(data);
    return samples;
  }
}

/** The offset of the PCM data, undefined while the header is incomplete, or an Error for another format. */
function parseHeader(header: Buffer, sampleRate: number): number | Error | undefined {
  if (header.length < 12) return undefined;
  if (header.toString('latin1', 0, 4) !== 'RIFF' || header.toString('latin1', 8, 12) !== 'WAVE') return new Error('the output is not a WAV');
  let at = 12;
  let format = false;
  while (header.length >= at + 8) {
    const id = header.toString('latin1', at, at + 4);
    const size = header.readUInt32LE(at + 4);
    if (id === 'data') {
      if (!format) return new Error('the WAV has no fmt chunk before its data');
      return at + 8;
    }
    if (header.length < at + 8 + size) return undefined;
    if (id === 'fmt ') {
      const [audioFormat, channels, rate, bits] = [header.readUInt16LE(at + 8), header.readUInt16LE(at + 10), header.readUInt32LE(at + 12), header.readUInt16LE(at + 22)];
      if (audioFormat !== 1 || channels !== 1 || bits !== 16 || rate !== sampleRate) {
        return new Error(`the WAV is format ${audioFormat}, ${channels} channels, ${bits} bits at ${rate} Hz; expected mono PCM16 at ${sampleRate} Hz`);
      }
      format = true;
    }
    at += 8 + size + (size % 2);
  }
  return undefined;
}
