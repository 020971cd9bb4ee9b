/*
 * Parley chat widget. Embed with:
 *   <script src="https://your-parley/widget.js" data-assistant-id="ASSISTANT-UUID" async></script>
 * It renders inside a shadow root, so the host page's styles cannot reach it and its styles cannot leak out.
 */
(() => {
  const script = document.currentScript;
  if (!script) return;
  const assistantId = script.getAttribute('data-assistant-id');
  if (!assistantId) {
    console.error('Parley widget: the script tag needs a data-assistant-id attribute.');
    return;
  }
  const apiBase = new URL('/api', script.src).toString();
  const title = script.getAttribute('data-title') || 'Chat with us';
  const storageKey = `parley:conversation:${assistantId}`;

  const plainWords = {
    'Insufficient balance. Please top up your account.': 'This chat is unavailable right now. Please try again later.',
    'Assistant not found': 'This chat is not set up correctly (unknown assistant).',
    'Conversation not found': 'That conversation has expired. A new one has started.',
  };
  const say = (error) => plainWords[error] || error || 'Something went wrong. Please try again.';

  const host = document.createElement('div');
  host.setAttribute('data-parley-widget', '');
  // Shown once its stylesheet has loaded (or failed to), so the page never sees the launcher unstyled.
  host.style.display = 'none';
  const root = host.attachShadow({ mode: 'open' });
  root.innerHTML = `
    <link rel="stylesheet" href="${new URL('widget.css', script.src)}">
    <button class="launcher" type="button" aria-label="Open chat" aria-expanded="false" aria-controls="parley-panel"><svg viewBox="0 0 24 24" width="26" height="26" aria-hidden="true" focusable="false"><path fill="currentColor" d="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2zm3 6a1.5 1.5 0 1 0 0 3 1.5 1.5 0 0 0 0-3zm5 0a1.5 1.5 0 1 0 0 3 1.5 1.5 0 0 0 0-3zm5 0a1.5 1.5 0 1 0 0 3 1.5 1.5 0 0 0 0-3z"/></svg></button>
    <section class="panel" id="parley-panel" role="dialog" aria-label="${title.replace(/"/g, '&quot;')}" hidden>
      <header><h2></h2>
        <button type="button" class="call" aria-label="Start a voice call"><svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" focusable="false"><path fill="currentColor" d="M6.6 10.8a15.1 15.1 0 0 0 6.6 6.6l2.2-2.2a1 1 0 0 1 1-.25 11.4 11.4 0 0 0 3.6.57 1 1 0 0 1 1 1V20a1 1 0 0 1-1 1A17 17 0 0 1 3 4a1 1 0 0 1 1-1h3.5a1 1 0 0 1 1 1c0 1.25.2 2.45.57 3.57a1 1 0 0 1-.25 1z"/></svg>Call</button>
        <button type="button" class="close" aria-label="Close chat">&times;</button></header>
      <div class="call-bar" hidden><span class="call-state" role="status"></span><button type="button" class="hang-up">Hang up</button></div>
      <div class="messages" role="log" aria-live="polite" aria-relevant="additions text"></div>
      <form>
        <label for="parley-input" class="visually-hidden">Your message</label>
        <textarea id="parley-input" maxlength="2000" placeholder="Type a message…" rows="1"></textarea>
        <button type="submit">Send</button>
      </form>
    </section>`;
  root.querySelector('h2').textContent = title;
  const stylesheet = root.querySelector('link');
  const reveal = () => host.style.removeProperty('display');
  stylesheet.addEventListener('load', reveal);
  stylesheet.addEventListener('error', reveal);

  const launcher = root.querySelector('.launcher');
  const panel = root.querySelector('.panel');
  const list = root.querySelector('.messages');
  const form = root.querySelector('form');
  const input = root.querySelector('textarea');
  const send = root.querySelector('form button');
  let conversationId = null;
  let starting = null;
  /** How many messages of the conversation's history are on screen: a person's answers are the ones after. */
  let seen = 0;
  /** While a person answers instead of the assistant (human takeover), the history is read every few seconds. */
  const HANDOVER_POLL_MS = 3000;
  let handoverTimer = null;

  const add = (kind, text) => {
    const element = document.createElement('div');
    element.className = `message ${kind}`;
    element.textContent = text;
    list.append(element);
    list.scrollTop = list.scrollHeight;
    return element;
  };
  const note = (kind, text) => {
    const element = document.createElement('div');
    element.className = kind;
    element.textContent = text;
    list.append(element);
    list.scrollTop = list.scrollHeight;
  };
  const show = (entry) => {
    if (entry.role === 'user') add('user', entry.content);
    else {
      for (const call of entry.function_calls || []) note('tool', `Used ${call.name.replace(/_/g, ' ')}`);
      if (entry.content) add(entry.human ? 'assistant human' : 'assistant', entry.content);
    }
  };
  /** Shows a conversation's history; the lines of a voice call started meanwhile stay after it. */
  const render = (history) => {
    const voice = list.querySelectorAll('.voice');
    list.replaceChildren();
    for (const entry of history) show(entry);
    seen = history.length;
    list.append(...voice);
  };

  async function json(response) {
    try { return await response.json(); } catch { return {}; }
  }

  /** A person has taken the conversation over: say so once, and show their answers as they come. */
  function handOver() {
    if (!list.querySelector('.handover')) note('handover', 'A person will answer here shortly.');
    handoverTimer ??= setInterval(() => readAnswers().catch(() => undefined), HANDOVER_POLL_MS);
  }

  /** The messages stored since the last look; once the assistant answers again, no more looking. */
  async function readAnswers() {
    const response = await fetch(`${apiBase}/conversations/${conversationId}`, { headers: { accept: 'application/json' } });
    if (!response.ok) return;
    const body = await json(response);
    for (const entry of (body.history || []).slice(seen)) show(entry);
    seen = Math.max(seen, (body.history || []).length);
    if (body.ai_enabled !== false) {
      clearInterval(handoverTimer);
      handoverTimer = null;
      list.querySelector('.handover')?.remove();
    }
  }

  async function startConversation() {
    const saved = localStorage.getItem(storageKey);
    if (saved) {
      const response = await fetch(`${apiBase}/conversations/${saved}`, { headers: { accept: 'application/json' } });
      if (response.ok) {
        conversationId = saved;
        const body = await json(response);
        render(body.history || []);
        if (body.ai_enabled === false) handOver();
        return;
      }
      localStorage.removeItem(storageKey);
    }
    const response = await fetch(`${apiBase}/conversations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ assistant_id: assistantId, type: 'widget' }),
    });
    const body = await json(response);
    if (!response.ok || !body.status) throw new Error(body.error);
    conversationId = body.conversation_id;
    localStorage.setItem(storageKey, conversationId);
    render(body.history || []);
  }

  function ensureConversation() {
    starting ??= startConversation().catch((error) => {
      starting = null;
      note('error', say(error.message));
      throw error;
    });
    return starting;
  }

  /** Reads server-sent events from a fetch response, calling `onEvent(name, data)` for each. */
  async function readEvents(response, onEvent) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let name = 'message';
        let data = '';
        for (const line of block.split('\n')) {
          if (line.startsWith('event: ')) name = line.slice(7);
          else if (line.startsWith('data: ')) data += line.slice(6);
        }
        onEvent(name, data ? JSON.parse(data) : null);
      }
    }
  }

  async function sendMessage(text) {
    await ensureConversation();
    add('user', text);
    send.disabled = true;
    let bubble = null;
    try {
      const response = await fetch(`${apiBase}/conversations/${conversationId}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ message: text }),
      });
      if (!response.ok || !(response.headers.get('content-type') || '').includes('text/event-stream')) {
        const body = await json(response);
        if (response.status === 404) {
          localStorage.removeItem(storageKey);
          starting = null;
        }
        note('error', say(body.error));
        return;
      }
      await readEvents(response, (name, data) => {
        if (name === 'token') {
          bubble ??= add('assistant', '');
          bubble.textContent += data.text;
          list.scrollTop = list.scrollHeight;
        } else if (name === 'tool_call') {
          note('tool', `Used ${data.name.replace(/_/g, ' ')}`);
          bubble = null;
        } else if (name === 'done') {
          if (!bubble && data.message) add('assistant', data.message);
          // The user's message, and the assistant's reply when there is one, are in the history now.
          seen += data.message ? 2 : 1;
          if (data.ai_enabled === false) handOver();
        } else if (name === 'error') {
          note('error', say(data.error));
        }
      });
    } catch {
      note('error', 'The connection failed. Please check your network and try again.');
    } finally {
      send.disabled = false;
      input.focus();
    }
  }

  const callButton = root.querySelector('.call');
  const callBar = root.querySelector('.call-bar');
  const callState = root.querySelector('.call-state');
  const hangUp = root.querySelector('.hang-up');
  const callStateWords = { connecting: 'Connecting…', listening: 'Listening…', speaking: 'Speaking…' };
  const callErrorWords = {
    'Insufficient balance to make call. Please top up your account.': 'Calls are unavailable right now. Please try again later.',
    'Assistant not found': 'Calls are not set up correctly (unknown assistant).',
  };
  let call = null;
  /** The line being spoken, per side, shown faint until its transcript is final. */
  const partials = {};

  const sayCallError = (error) => {
    if (error.kind === 'microphone') {
      if (error.name === 'NotAllowedError') return 'The microphone is blocked. Allow it for this site in your browser to call.';
      if (error.name === 'NotFoundError') return 'No microphone was found. Connect one and try again.';
      return 'The microphone could not be started. Close other apps using it and try again.';
    }
    if (error.kind === 'insecure') return 'Voice calls need a secure (https) page.';
    if (error.kind === 'network') return 'The connection failed. Please check your network and try again.';
    if (callErrorWords[error.message]) return callErrorWords[error.message];
    // The server's socket refused the call (1013): its reason says why, "All lines are busy" when they are.
    if (error.kind === 'unavailable') return error.message || 'All lines are busy right now. Please try again in a few minutes.';
    if (error.status === 429) return 'Too many calls were started from here. Please wait a minute and try again.';
    // Anything else, a 503 included (no language model configured), in the server's own words.
    return say(error.message);
  };

  /** web-call.js, from the same server as this script, loaded on the first call only. */
  const loadWebCall = () => new Promise((resolve, reject) => {
    if (window.ParleyWebCall) return resolve(window.ParleyWebCall);
    const element = document.createElement('script');
    element.src = new URL('/web-call.js', script.src).toString();
    element.onload = () => resolve(window.ParleyWebCall);
    element.onerror = () => reject(Object.assign(new Error('web-call.js did not load'), { kind: 'network' }));
    document.head.append(element);
  });

  const showTranscript = ({ role, text, final }) => {
    const kind = role === 'user' ? 'user' : 'assistant';
    partials[kind] ??= add(`${kind} voice partial`, '');
    partials[kind].textContent = text;
    if (final) {
      if (text) partials[kind].classList.remove('partial');
      else partials[kind].remove();
      partials[kind] = null;
    }
    list.scrollTop = list.scrollHeight;
  };

  const showCallState = (state, detail) => {
    callBar.dataset.state = state;
    if (state !== 'ended') {
      callState.textContent = callStateWords[state];
      return;
    }
    call = null;
    for (const kind of Object.keys(partials)) {
      partials[kind]?.remove();
      partials[kind] = null;
    }
    callState.textContent = detail.reason ? `Call ended. ${detail.reason}` : 'Call ended.';
    const hadFocus = root.activeElement === hangUp;
    hangUp.hidden = true;
    callButton.hidden = false;
    if (hadFocus) callButton.focus();
  };

  async function startCall() {
    callButton.hidden = true;
    hangUp.hidden = false;
    callBar.hidden = false;
    hangUp.focus();
    showCallState('connecting', {});
    try {
      const client = await loadWebCall();
      call = client.start({
        apiBase,
        assistantId,
        onTranscript: showTranscript,
        onState: showCallState,
        onError: (error) => note('error voice', sayCallError(error)),
      });
    } catch (error) {
      note('error voice', sayCallError(error));
      showCallState('ended', { reason: '' });
    }
  }

  const open = (show) => {
    panel.hidden = !show;
    launcher.setAttribute('aria-expanded', String(show));
    launcher.setAttribute('aria-label', show ? 'Close chat' : 'Open chat');
    if (show) {
      input.focus();
      ensureConversation().catch(() => undefined);
    } else {
      launcher.focus();
    }
  };
  launcher.addEventListener('click', () => open(panel.hidden));
  root.querySelector('.close').addEventListener('click', () => open(false));
  callButton.addEventListener('click', () => {
    if (!call) startCall().catch(() => undefined);
  });
  hangUp.addEventListener('click', () => call?.hangUp());
  panel.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') open(false);
  });
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text || send.disabled) return;
    input.value = '';
    sendMessage(text).catch(() => undefined);
  });

  const mount = () => document.body.append(host);
  if (document.body) mount();
  else document.addEventListener('DOMContentLoaded', mount);
})();
