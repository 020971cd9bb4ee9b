/*
 * The sandbox softphone page (/sandbox/phone): a phone on Parley's sandbox carrier over one WebSocket. JSON
 * messages claim a number, ring, answer, dial, press keys and hang up (src/simulators/sandbox-carrier/
 * softphones.ts has the protocol); binary messages carry the call's audio, 16 kHz PCM16 both ways, captured and
 * played by web-call.js's worklets. During a call the keypad sends its keys (the carrier hands them to Parley as
 * Twilio's Media Streams `dtmf` messages) and plays each key's tone here, as a phone's earpiece does.
 */
(() => {
  const $ = (id) => document.getElementById(id);
  /** A key's two frequencies (ITU-T Q.23): its row's and its column's. */
  const KEY_ROWS = ['123', '456', '789', '*0#'];
  const ROW_HZ = [697, 770, 852, 941];
  const COLUMN_HZ = [1209, 1336, 1477];
  const TONE_SECONDS = 0.15;
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
    // In a call the keypad sends tones; otherwise it types the number to call.
    for (const key of $('keypad').querySelectorAll('button')) key.disabled = inCall() !== isToneKey(key.textContent);
  }

  const inCall = () => Boolean(call && call.phase === 'connected');
  const isToneKey = (key) => /^[0-9*#]$/.test(key);

  /** The key's tone, short and quiet, through the call's speaker: the person hears what they pressed. */
  function playTone(key) {
    if (!audio) return;
    const { context } = audio;
    const row = KEY_ROWS.findIndex((keys) => keys.includes(key));
    const volume = context.createGain();
    volume.gain.value = 0.1;
    volume.connect(context.destination);
    const stopAt = context.currentTime + TONE_SECONDS;
    for (const frequency of [ROW_HZ[row], COLUMN_HZ[KEY_ROWS[row].indexOf(key)]]) {
      const oscillator = context.createOscillator();
      oscillator.frequency.value = frequency;
      oscillator.connect(volume);
      oscillator.start();
      oscillator.stop(stopAt);
    }
  }

  /** A key pressed during the call: to the carrier, and its tone here. */
  function pressKey(key) {
    send({ type: 'dtmf', digit: key });
    playTone(key);
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
    if (!key || key.disabled) return;
    if (inCall()) return pressKey(key.textContent);
    const input = $('dial-number');
    input.value = key.getAttribute('aria-label') === 'Delete' ? input.value.slice(0, -1) : input.value + key.textContent;
  });
  // The keyboard's keys too, unless they are typing into a field.
  document.addEventListener('keydown', (event) => {
    if (!inCall() || !isToneKey(event.key) || event.repeat || event.target.tagName === 'INPUT') return;
    event.preventDefault();
    pressKey(event.key);
  });

  render();
  connect();
})();
