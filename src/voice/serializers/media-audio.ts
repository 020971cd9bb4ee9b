/**
 * The audio edge of one media stream: payloads in the format its start message announced on one side, PCM16
 * at the engine's internal rate on the other. Each stream decodes and resamples once on the way in and once
 * on the way out, with a resampler per direction so that chunk boundaries stay seamless.
 */
import { INTERNAL_SAMPLE_RATE, samplesPerFrame } from '../audio/frames.ts';
import { decodeMulaw, encodeMulaw } from '../../lib/audio/mulaw.ts';
import { pcm16FromBytes, pcm16ToBytes } from '../../lib/audio/pcm.ts';
import { Resampler } from '../../lib/audio/resampler.ts';
import { MediaStreamMessageError, type MediaFormat } from './twilio.ts';

/** Converts one stream's payloads to and from PCM16 at the internal rate; stateful, one per stream. */
export class MediaStreamAudio {
  readonly format: MediaFormat;
  /** Samples per outbound frame (20 ms) at the stream's rate. */
  readonly frameSamples: number;
  private readonly inbound: Resampler | undefined;
  private readonly outbound: Resampler | undefined;
  /** Outbound samples at the stream's rate not yet making up a whole frame. */
  private readonly pending: Int16Array;
  private pendingLength = 0;

  constructor(format: MediaFormat, internalRate = INTERNAL_SAMPLE_RATE) {
    this.format = format;
    this.frameSamples = samplesPerFrame(format.sampleRate);
    const same = format.sampleRate === internalRate;
    this.inbound = same ? undefined : new Resampler(format.sampleRate, internalRate);
    this.outbound = same ? undefined : new Resampler(internalRate, format.sampleRate);
    this.pending = new Int16Array(this.frameSamples);
  }

  /** An inbound media payload (base64, already checked by the parser) as PCM16 at the internal rate. */
  decode(payload: string): Int16Array {
    const bytes = Buffer.from(payload, 'base64');
    let samples: Int16Array;
    if (this.format.encoding === 'audio/x-mulaw') {
      samples = decodeMulaw(bytes);
    } else {
      if (bytes.length % 2 !== 0) throw new MediaStreamMessageError('malformed', 'An audio/x-l16 payload must hold whole 16-bit samples.');
      samples = pcm16FromBytes(bytes);
    }
    return this.inbound ? this.inbound.process(samples) : samples;
  }

  /**
   * PCM16 at the internal rate as outbound payloads of whole 20 ms frames in the stream's format; what does
   * not fill a frame waits for the next call or for flush().
   */
  encode(samples: Int16Array): string[] {
    const resampled = this.outbound ? this.outbound.process(samples) : samples;
    const payloads: string[] = [];
    let offset = 0;
    if (this.pendingLength > 0) {
      offset = Math.min(resampled.length, this.frameSamples - this.pendingLength);
      this.pending.set(resampled.subarray(0, offset), this.pendingLength);
      this.pendingLength += offset;
      if (this.pendingLength < this.frameSamples) return payloads;
      payloads.push(this.payloadOf(this.pending));
      this.pendingLength = 0;
    }
    for (; offset + this.frameSamples <= resampled.length; offset += this.frameSamples) {
      payloads.push(this.payloadOf(resampled.subarray(offset, offset + this.frameSamples)));
    }
    this.pending.set(resampled.subarray(offset));
    this.pendingLength = resampled.length - offset;
    return payloads;
  }

  /** The samples still waiting as one last, shorter payload (end of an utterance); none if nothing waits. */
  flush(): string[] {
    if (this.pendingLength === 0) return [];
    const payload = this.payloadOf(this.pending.subarray(0, this.pendingLength));
    this.pendingLength = 0;
    return [payload];
  }

  /**
   * Drops the outbound audio not yet sent, the partial frame and the resampler's delay line, when the other
   * side is told to `clear` (barge-in): nothing of the interrupted utterance leaks into the next one.
   */
  clearOutbound(): void {
    this.pendingLength = 0;
    this.outbound?.reset();
  }

  private payloadOf(frame: Int16Array): string {
    const bytes = this.format.encoding === 'audio/x-mulaw' ? encodeMulaw(frame) : pcm16ToBytes(frame);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  }
}
