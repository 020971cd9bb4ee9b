/*
 * The sandbox softphone page (/sandbox/phone): a phone on Parley's sandbox carrier over one WebSocket. JSON
 * messages claim a number, ring, answer, dial and hang up (src/providers/telephony/sandbox-carrier/
 * softphones.ts has the protocol); binary messages carry the call's audio, 16 kHz PCM16 both ways, captured and
 * played by web-call.js's worklets.
 */
(() => {
  const $ = (id) => document.getElementById(id);
  const endings = {
    'completed': 'Call ended.',
    'busy': 'Busy: the call was declined.',
    'no-answer': 'No answer.',
    'canceled': 'The call was cancelled.',
    'failed': 'The call failed.',
  };

  let socket = null;
  let number = null;
  /** The call on this phone: { sid, phase: incoming | calling | connected }. */
  let call = null;
  /** The call's audio once its microphone is open: { context, microphone, playback }. */
  let audio = null;
  /** Counts audio started and stopped, so audio that opens after its call ended is closed at once. */
  let audioGeneration = 0;

  const setStatus = (text) => { $('status').textContent = text; };
  const send = (message) => {
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
  };

  function render() {
    $('own').hidden = !number;
    $('own-number').textContent = number || '';
    $('incoming').hidden = !(call && call.phase === 'incoming');
    $('call').disabled = !number || Boolean(call);
    $('hangup').disabled = !call || call.phase === 'incoming';
    $('claim-form').querySelector('button').disabled = Boolean(call);
  }

  /** Opens the microphone and the speaker; `context` was made during the click, so autoplay rules let it play. */
  async function startAudio(context) {
    const microphone = await navigator.mediaDevices.getUserMedia({
      audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true, autoGainControl: true },
    });
    await context.audioWorklet.addModule(window.ParleyWebCall.workletUrl);
    const capture = new AudioWorkletNode(context, 'parley-capture', { numberOfInputs: 1, numberOfOutputs: 0 });
    const playback = new AudioWorkletNode(context, 'parley-playback', { numberOfInputs: 0, numberOfOutputs: 1, outputChannelCount: [1] });
    playback.connect(context.destination);
    context.createMediaStreamSource(microphone).connect(capture);
    capture.port.onmessage = (event) => {
      if (call && call.phase === 'connected' && socket.readyState === WebSocket.OPEN) socket.send(event.data);
    };
    await context.resume();
    return { context, microphone, playback };
  }

  function stopAudio(pending) {
    const stopping = pending || audio;
    if (!pending) {
      audio = null;
      audioGeneration += 1;
    }
    if (!stopping) return;
    if (stopping.microphone) for (const track of stopping.microphone.getTracks()) track.stop();
    stopping.context.close().catch(() => undefined);
  }

  /** Starts the call's audio from a click; the call is hung up if the microphone cannot be opened. */
  function withAudio() {
    const context = new AudioContext();
    const generation = audioGeneration;
    startAudio(context).then((started) => {
      if (generation === audioGeneration) audio = started;
      else stopAudio(started);
    }, (error) => {
      stopAudio({ context });
      setStatus(`The microphone could not be opened: ${error.message}`);
      send({ type: 'hangup' });
    });
  }

  function control(message) {
    if (message.type === 'claimed') {
      number = message.number;
      setStatus(`Your number is ${number}. Waiting for calls.`);
    } else if (message.type === 'incoming') {
      call = { sid: message.sid, phase: 'incoming' };
      $('caller').textContent = message.from;
      setStatus(`Incoming call from ${message.from}…`);
    } else if (message.type === 'calling') {
      call = { sid: message.sid, phase: 'calling' };
      setStatus(`Calling ${message.to}…`);
    } else if (message.type === 'connected' && call && call.sid === message.sid) {
      call.phase = 'connected';
      setStatus('Connected.');
    } else if (message.type === 'ended' && call && call.sid === message.sid) {
      call = null;
      stopAudio();
      setStatus(endings[message.status] || `Call ended (${message.status}).`);
    } else if (message.type === 'error') {
      // A call that was refused (say, a number that is not E.164) needs no microphone.
      if (!call) stopAudio();
      setStatus(message.message);
    }
    render();
  }

  function play(pcm) {
    if (audio && call && call.phase === 'connected') audio.playback.port.postMessage({ type: 'audio', pcm }, [pcm]);
  }

  function connect() {
    const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
    socket = new WebSocket(`${scheme}://${window.location.host}/sandbox/phone/socket`);
    socket.binaryType = 'arraybuffer';
    socket.onopen = () => setStatus('Claim a number to start.');
    socket.onmessage = (event) => {
      if (typeof event.data !== 'string') return play(event.data);
      try { control(JSON.parse(event.data)); } catch { /* not a message of the carrier's */ }
    };
    socket.onclose = () => {
      number = null;
      call = null;
      stopAudio();
      render();
      setStatus('Disconnected from the sandbox carrier: reload the page to claim a number again.');
    };
  }

  $('claim-form').addEventListener('submit', (event) => {
    event.preventDefault();
    send({ type: 'claim', number: $('claim-number').value.replace(/[\s().-]/g, '') });
  });
  $('answer').addEventListener('click', () => {
    send({ type: 'answer' });
    withAudio();
  });
  $('decline').addEventListener('click', () => send({ type: 'decline' }));
  $('hangup').addEventListener('click', () => send({ type: 'hangup' }));
  $('call').addEventListener('click', () => {
    send({ type: 'dial', to: $('dial-number').value.replace(/[\s().-]/g, '') });
    withAudio();
  });
  $('keypad').addEventListener('click', (event) => {
    const key = event.target.closest('button');
    if (!key) return;
    const input = $('dial-number');
    input.value = key.getAttribute('aria-label') === 'Delete' ? input.value.slice(0, -1) : input.value + key.textContent;
  });

  render();
  connect();
})();
