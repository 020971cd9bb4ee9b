/*
 * Parley web call: a voice call with an assistant from the browser, without dependencies.
 *   const call = ParleyWebCall.start({ apiBase, assistantId, variables, onTranscript, onState, onError });
 *   call.hangUp();
 * It speaks the Twilio Media Streams protocol over the call's WebSocket, as the phone network does, with
 * 16 kHz PCM16 (audio/x-l16) instead of 8 kHz mu-law. Audio runs in two AudioWorklets (capture, playback) so
 * the page's main thread never carries it; only 20 ms frames cross to the socket.
 */
/* global AudioWorkletProcessor, registerProcessor, sampleRate, currentFrame */
(() => {
  const STREAM_RATE = 16000;

  /*
   * The worklet module. It runs in the AudioWorkletGlobalScope, shipped as a Blob URL built from this
   * function's source so the client stays one file; it must not refer to anything outside itself.
   */
  function workletScope() {
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
  }

  const workletUrl = URL.createObjectURL(new Blob([`(${workletScope.toString()})();`], { type: 'application/javascript' }));

  const base64FromBuffer = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer)));
  /** A payload's bytes, whole 16-bit samples only. */
  const bufferFromBase64 = (text) => {
    const bytes = Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
    return bytes.buffer.slice(0, bytes.length & ~1);
  };

  /** An error the caller can word for people: `kind` is microphone, insecure, http, unavailable or network. */
  const callError = (kind, message, details = {}) => Object.assign(new Error(message), { kind, ...details });

  async function openMicrophone() {
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      throw callError('insecure', 'The microphone is only available on secure (https) pages.');
    }
    try {
      return await navigator.mediaDevices.getUserMedia({
        audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true, autoGainControl: true },
      });
    } catch (error) {
      throw callError('microphone', error.message, { name: error.name });
    }
  }

  async function createCall(apiBase, assistantId, variables) {
    let response;
    try {
      response = await fetch(`${apiBase}/web-calls`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ assistant_id: assistantId, variables: variables || {} }),
      });
    } catch (error) {
      throw callError('network', error.message);
    }
    let body = {};
    try { body = await response.json(); } catch { /* an empty or non-JSON body: the status speaks */ }
    if (response.status !== 201 || !body.data || !body.data.websocket_url) {
      throw callError('http', body.error || body.message || `The call could not be started (HTTP ${response.status}).`, { status: response.status });
    }
    return body.data;
  }

  /**
   * Starts a call. onState(state, detail) sees connecting, listening, speaking and ended ({reason});
   * onTranscript({role, text, final}) each transcript update; onError(error) a failure to start, with
   * `kind` (and `name` for the microphone, `status` for HTTP, `code` for a call the server refused on its
   * socket: `unavailable`, with the server's reason as the message), always followed by ended.
   */
  function start({ apiBase, assistantId, variables, onTranscript = () => {}, onState = () => {}, onError = () => {} }) {
    // Created during the click that started the call, so that autoplay rules let it play.
    const context = new AudioContext();
    let microphone = null;
    let socket = null;
    let ended = false;
    let hungUp = false;
    let state = null;
    const random = Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('');
    const stream = { sid: `MZ${random}`, callSid: '', sequence: 0, chunk: 0 };

    const release = () => {
      if (microphone) for (const track of microphone.getTracks()) track.stop();
    };
    const setState = (next, detail) => {
      if (ended || next === state) return;
      state = next;
      if (next === 'ended') {
        ended = true;
        release();
        context.close().catch(() => undefined);
      }
      onState(next, detail || {});
    };
    const send = (message) => {
      if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
    };
    const sequenced = (event, fields) => {
      stream.sequence += 1;
      send({ event, sequenceNumber: String(stream.sequence), streamSid: stream.sid, ...fields });
    };

    function receive(event, playback) {
      let message;
      try { message = JSON.parse(event.data); } catch { return; }
      if (!message || typeof message !== 'object') return;
      if (message.event === 'media' && message.media && typeof message.media.payload === 'string') {
        const pcm = bufferFromBase64(message.media.payload);
        playback.port.postMessage({ type: 'audio', pcm }, [pcm]);
      } else if (message.event === 'mark' && message.mark && typeof message.mark.name === 'string') {
        playback.port.postMessage({ type: 'mark', name: message.mark.name });
      } else if (message.event === 'clear') {
        playback.port.postMessage({ type: 'clear' });
      } else if (message.event === 'transcript' && message.transcript && typeof message.transcript.text === 'string') {
        const { role, text, final } = message.transcript;
        if (role === 'assistant' || role === 'user') onTranscript({ role, text, final: final === true });
      }
    }

    async function connect() {
      setState('connecting');
      microphone = await openMicrophone();
      // Hung up while the browser asked for the microphone: give it back at once.
      if (ended) return release();
      await context.audioWorklet.addModule(workletUrl);
      const call = await createCall(apiBase, assistantId, variables);
      if (ended) return;
      stream.callSid = String(call.call_id);
      await context.resume();
      const capture = new AudioWorkletNode(context, 'parley-capture', { numberOfInputs: 1, numberOfOutputs: 0 });
      const playback = new AudioWorkletNode(context, 'parley-playback', { numberOfInputs: 0, numberOfOutputs: 1, outputChannelCount: [1] });
      playback.connect(context.destination);
      socket = new WebSocket(call.websocket_url);
      socket.onopen = () => {
        send({ event: 'connected', protocol: 'Call', version: '1.0.0' });
        const mediaFormat = { encoding: 'audio/x-l16', sampleRate: STREAM_RATE, channels: 1 };
        const start = { streamSid: stream.sid, accountSid: 'web', callSid: stream.callSid, tracks: ['inbound', 'outbound'], customParameters: {}, mediaFormat };
        sequenced('start', { start });
        context.createMediaStreamSource(microphone).connect(capture);
        setState('listening');
      };
      capture.port.onmessage = (event) => {
        stream.chunk += 1;
        const media = { track: 'inbound', chunk: String(stream.chunk), timestamp: String((stream.chunk - 1) * 20), payload: base64FromBuffer(event.data) };
        sequenced('media', { media });
      };
      playback.port.onmessage = (event) => {
        if (event.data.type === 'mark') {
          // The worklet answers as the samples go to the device; the caller hears them outputLatency later.
          const heard = (context.outputLatency || context.baseLatency || 0) * 1000;
          setTimeout(() => sequenced('mark', { mark: { name: event.data.name } }), heard);
        } else if (event.data.type === 'playing') setState(event.data.playing ? 'speaking' : 'listening');
      };
      socket.onmessage = (event) => receive(event, playback);
      socket.onclose = (event) => {
        // 1013 (try again later): the server did not take the call, because all its lines are busy or what the
        // call needs is not available; the close reason says which.
        if (event.code === 1013 && !hungUp) {
          onError(callError('unavailable', event.reason, { code: event.code }));
          setState('ended', { reason: 'The call could not start.', code: event.code });
          return;
        }
        const reason = hungUp ? 'You hung up.' : event.reason || (event.code === 1000 ? 'The call ended.' : 'The connection to the call was lost.');
        setState('ended', { reason, code: event.code });
      };
    }

    connect().catch((error) => {
      if (ended) return release();
      onError(error.kind ? error : callError('network', error.message));
      setState('ended', { reason: 'The call could not start.' });
    });

    return {
      hangUp() {
        if (ended) return;
        hungUp = true;
        if (socket && socket.readyState === WebSocket.OPEN) {
          sequenced('stop', { stop: { accountSid: 'web', callSid: stream.callSid } });
          socket.close(1000, 'Hung up');
        } else {
          if (socket) socket.close();
          setState('ended', { reason: 'You hung up.' });
        }
      },
    };
  }

  // The worklets are shared with the sandbox softphone page, which captures and plays the same 16 kHz PCM16.
  window.ParleyWebCall = { start, workletUrl };
})();
