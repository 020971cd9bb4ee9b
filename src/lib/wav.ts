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
