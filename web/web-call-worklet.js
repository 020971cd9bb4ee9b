/*
 * The AudioWorklet module of the Parley web call (web/web-call.js loads it from beside itself): capture turns
 * the microphone into 20 ms PCM16 frames at 16 kHz, playback plays the stream's frames and reports its marks.
 * It runs in the AudioWorkletGlobalScope, so it refers to nothing outside itself.
 */
/* global AudioWorkletProcessor, registerProcessor, sampleRate, currentFrame */
const STREAM_RATE = 16000;
const FRAME_SAMPLES = 320; // 20 ms at 16 kHz
const ZERO_CROSSINGS = 8; // per side of the sinc kernel: stop-band well below 16-bit noise after windowing
const TABLE_STEPS = 256; // kernel table entries per input sample, linearly interpolated between

/**
 * A streaming band-limited resampler: a Blackman-windowed sinc low-pass at 90 % of the lower rate's
 * Nyquist frequency, evaluated at each output instant, so that decimation does not alias and
 * interpolation does not image. Input arrives in blocks of any size; state carries across blocks.
 */
class Resampler {
  constructor(fromRate, toRate) {
    this.step = fromRate / toRate;
    const cutoff = 0.45 * Math.min(1, toRate / fromRate); // cycles per input sample
    this.halfWidth = Math.ceil(ZERO_CROSSINGS / (2 * cutoff));
    const entries = this.halfWidth * TABLE_STEPS;
    this.kernel = new Float32Array(entries + 2);
    for (let i = 0; i <= entries; i += 1) {
      const distance = i / TABLE_STEPS;
      const x = 2 * cutoff * distance;
      const sinc = x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
      const w = distance / this.halfWidth;
      const blackman = 0.42 + 0.5 * Math.cos(Math.PI * w) + 0.08 * Math.cos(2 * Math.PI * w);
      this.kernel[i] = 2 * cutoff * sinc * blackman;
    }
    this.history = new Float32Array(4096);
    this.reset();
  }

  reset() {
    this.history.fill(0);
    this.length = this.halfWidth;
    this.position = this.halfWidth;
  }

  /** Resamples `input`, writing into `output` (large enough: input.length / step + 2); returns the count. */
  process(input, output) {
    if (this.length + input.length > this.history.length) {
      const grown = new Float32Array((this.length + input.length) * 2);
      grown.set(this.history.subarray(0, this.length));
      this.history = grown;
    }
    this.history.set(input, this.length);
    this.length += input.length;
    const { history, kernel, halfWidth } = this;
    let written = 0;
    while (Math.floor(this.position) + halfWidth < this.length) {
      const center = Math.floor(this.position);
      let sum = 0;
      for (let i = center - halfWidth + 1; i <= center + halfWidth; i += 1) {
        const at = Math.abs(this.position - i) * TABLE_STEPS;
        const j = at | 0;
        sum += history[i] * (kernel[j] + (kernel[j + 1] - kernel[j]) * (at - j));
      }
      output[written] = sum;
      written += 1;
      this.position += this.step;
    }
    const consumed = Math.floor(this.position) - halfWidth;
    if (consumed > 0) {
      history.copyWithin(0, consumed, this.length);
      this.length -= consumed;
      this.position -= consumed;
    }
    return written;
  }
}

/** Microphone → 16 kHz → 20 ms frames of little-endian PCM16, posted to the page as ArrayBuffers. */
class CaptureProcessor extends AudioWorkletProcessor {
  constructor() {
    super();
    this.resampler = new Resampler(sampleRate, STREAM_RATE);
    this.resampled = new Float32Array(1024);
    this.frame = new DataView(new ArrayBuffer(FRAME_SAMPLES * 2));
    this.filled = 0;
  }

  process(inputs) {
    const channel = inputs[0] && inputs[0][0];
    if (!channel) return true;
    const count = this.resampler.process(channel, this.resampled);
    for (let i = 0; i < count; i += 1) {
      const sample = Math.max(-1, Math.min(1, this.resampled[i]));
      this.frame.setInt16(this.filled * 2, Math.round(sample < 0 ? sample * 0x8000 : sample * 0x7fff), true);
      this.filled += 1;
      if (this.filled === FRAME_SAMPLES) {
        this.port.postMessage(this.frame.buffer, [this.frame.buffer]);
        this.frame = new DataView(new ArrayBuffer(FRAME_SAMPLES * 2));
        this.filled = 0;
      }
    }
    return true;
  }
}

/**
 * The assistant's audio: 16 kHz PCM16 in, resampled to the device rate into a ring buffer, played without
 * gaps. A mark is answered once every sample queued before it has been handed to the device; `clear`
 * drops what is queued and answers the pending marks at once (Twilio's semantics).
 */
class PlaybackProcessor extends AudioWorkletProcessor {
  constructor() {
    super();
    this.ring = new Float32Array(sampleRate * 30); // longer than any utterance the engine sends ahead
    this.written = 0; // samples ever queued
    this.read = 0; // samples ever played
    this.marks = [];
    this.playing = false;
    this.lastWrite = 0;
    this.quietSince = 0;
    this.startAfter = Math.round(sampleRate * 0.06); // a little head start absorbs network jitter
    this.stopAfter = Math.round(sampleRate * 0.15); // short gaps between sentences are still speaking
    this.resampler = new Resampler(STREAM_RATE, sampleRate);
    this.resampled = new Float32Array(4096);
    this.port.onmessage = (event) => this.receive(event.data);
  }

  receive(message) {
    if (message.type === 'audio') this.queue(new DataView(message.pcm));
    else if (message.type === 'mark') this.marks.push({ name: message.name, at: this.written });
    else if (message.type === 'clear') this.clear();
  }

  queue(pcm) {
    const samples = new Float32Array(pcm.byteLength >> 1);
    for (let i = 0; i < samples.length; i += 1) samples[i] = pcm.getInt16(i * 2, true) / 0x8000;
    if (this.resampled.length < samples.length * 4 + 2) this.resampled = new Float32Array(samples.length * 4 + 2);
    const count = this.resampler.process(samples, this.resampled);
    // Past the ring's capacity audio is dropped rather than overwriting what has not played yet.
    const room = this.ring.length - (this.written - this.read);
    for (let i = 0; i < Math.min(count, room); i += 1) this.ring[(this.written + i) % this.ring.length] = this.resampled[i];
    this.written += Math.min(count, room);
    this.lastWrite = currentFrame;
  }

  clear() {
    this.read = this.written;
    this.resampler.reset();
    for (const mark of this.marks) this.port.postMessage({ type: 'mark', name: mark.name });
    this.marks = [];
    this.setPlaying(false);
  }

  setPlaying(playing) {
    if (playing === this.playing) return;
    this.playing = playing;
    this.port.postMessage({ type: 'playing', playing });
  }

  process(_inputs, outputs) {
    const output = outputs[0][0];
    const queued = this.written - this.read;
    if (!this.playing && queued > 0 && (queued >= this.startAfter || this.marks.length > 0 || currentFrame - this.lastWrite >= this.startAfter)) {
      this.setPlaying(true);
    }
    let played = 0;
    if (this.playing) {
      played = Math.min(queued, output.length);
      for (let i = 0; i < played; i += 1) output[i] = this.ring[(this.read + i) % this.ring.length];
      this.read += played;
    }
    output.fill(0, played);
    for (let c = 1; c < outputs[0].length; c += 1) outputs[0][c].set(output);
    while (this.marks.length > 0 && this.marks[0].at <= this.read) {
      this.port.postMessage({ type: 'mark', name: this.marks.shift().name });
    }
    if (this.written > this.read) this.quietSince = currentFrame + output.length;
    else if (this.playing && currentFrame - this.quietSince >= this.stopAfter) this.setPlaying(false);
    return true;
  }
}

registerProcessor('parley-capture', CaptureProcessor);
registerProcessor('parley-playback', PlaybackProcessor);
