/*
 * Parley web call: a voice call with an assistant from the browser, without dependencies.
 *   const call = ParleyWebCall.start({ apiBase, assistantId, variables, onTranscript, onState, onError });
 *   call.hangUp();
 * It speaks the Twilio Media Streams protocol over the call's WebSocket, as the phone network does, with
 * 16 kHz PCM16 (audio/x-l16) instead of 8 kHz mu-law. Audio runs in two AudioWorklets (capture, playback) so
 * the page's main thread never carries it; only 20 ms frames cross to the socket.
 */
(() => {
  const STREAM_RATE = 16000;

  // The worklet module is served beside this script; resolved now, while the script is the current one.
  const workletUrl = new URL('web-call-worklet.js', document.currentScript.src).toString();

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
