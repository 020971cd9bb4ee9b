import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { errorDetail, isRetryableStatus, pcm16Samples } from '../../src/providers/speech-http.ts';
import { wavFile } from '../../src/lib/audio/wav.ts';

async function samplesOf(chunks: Uint8Array[]): Promise<number[]> {
  const out: number[] = [];
  for await (const samples of pcm16Samples(Readable.from(chunks))) out.push(...samples);
  return out;
}

function bytesOf(samples: number[]): Uint8Array {
  return new Uint8Array(Int16Array.from(samples).buffer);
}

describe('pcm16Samples', () => {
  const samples = [0, 1, -1, 256, -256, 32767, -32768, 12345, -12345, 2];
  const bytes = bytesOf(samples);

  it('joins a sample split across two chunks at every possible boundary', async () => {
    for (let cut = 0; cut <= bytes.length; cut++) {
      expect(await samplesOf([bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual(samples);
    }
  });

  it('reads a stream delivered one byte at a time, and chunks of odd sizes', async () => {
    expect(await samplesOf([...bytes].map((byte) => Uint8Array.of(byte)))).toEqual(samples);
    expect(await samplesOf([bytes.subarray(0, 3), bytes.subarray(3, 4), bytes.subarray(4, 11), bytes.subarray(11)])).toEqual(samples);
  });

  it('drops half a sample left at the end of the stream', async () => {
    expect(await samplesOf([bytes.subarray(0, 5)])).toEqual(samples.slice(0, 2));
  });
});

describe('wavFile', () => {
  it('writes a PCM16 mono RIFF header before the little-endian samples', () => {
    const file = Buffer.from(wavFile(Int16Array.of(1, -2, 300), 16000));
    expect(file.length).toBe(44 + 6);
    expect(file.toString('ascii', 0, 4)).toBe('RIFF');
    expect(file.readUInt32LE(4)).toBe(36 + 6);
    expect(file.toString('ascii', 8, 16)).toBe('WAVEfmt ');
    expect([file.readUInt16LE(20), file.readUInt16LE(22), file.readUInt32LE(24), file.readUInt32LE(28), file.readUInt16LE(32), file.readUInt16LE(34)])
      .toEqual([1, 1, 16000, 32000, 2, 16]);
    expect(file.toString('ascii', 36, 40)).toBe('data');
    expect(file.readUInt32LE(40)).toBe(6);
    expect([file.readInt16LE(44), file.readInt16LE(46), file.readInt16LE(48)]).toEqual([1, -2, 300]);
  });
});

describe('speech provider failures', () => {
  it('counts busy, rate-limited and server-side failures as retryable, and refusals as not', () => {
    expect([408, 429, 500, 502, 503, 504, 520].map(isRetryableStatus)).toEqual([true, true, true, true, true, true, true]);
    expect([400, 401, 403, 404, 422].map(isRetryableStatus)).toEqual([false, false, false, false, false]);
  });

  it('reads the message of each provider\'s error body', () => {
    expect(errorDetail('{"error":{"message":"Invalid file format.","type":"invalid_request_error"}}')).toBe('Invalid file format.');
    expect(errorDetail('{"detail":{"status":"quota_exceeded","message":"Quota exceeded"}}')).toBe('Quota exceeded');
    expect(errorDetail('{"detail":[{"loc":["body","text"],"msg":"field required"}]}')).toBe('field required');
    expect(errorDetail('{"err_code":"Bad Request","err_msg":"Invalid encoding"}')).toBe('Invalid encoding');
    expect(errorDetail('upstream timed out')).toBe('upstream timed out');
  });
});
