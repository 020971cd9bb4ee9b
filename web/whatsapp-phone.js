/*
 * The sandbox WhatsApp phone page (/sandbox/whatsapp): a customer's WhatsApp on Parley's sandbox carrier. It
 * talks to the carrier through /api/sandbox/whatsapp/… (src/simulators/sandbox-carrier/http/whatsapp-page.ts): lists
 * the senders to pick from, reads the chat with one (polled, so the sender's statuses and replies appear as the
 * carrier reports them), writes as the customer and marks the sender's delivered messages read.
 */
(() => {
  const $ = (id) => document.getElementById(id);
  const API = '/api/sandbox/whatsapp';
  const POLL_MS = 1500;

  /** The open chat: { sender, phone, name }; null until one is opened. */
  let chat = null;
  /** The sender numbers' display names, from the list of senders. */
  const senderNames = new Map();
  /** The chat's messages on the page, by sid, so a poll updates a status in place instead of redrawing. */
  const shown = new Map();
  let poller = null;

  const setStatus = (text) => { $('status').textContent = text; };

  /** A JSON request to the page's routes; an error answer becomes an Error with the server's message. */
  async function call(method, path, body) {
    const response = await fetch(`${API}${path}`, {
      method,
      headers: body ? { 'content-type': 'application/json' } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
    const answer = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(answer.message || `The server answered ${response.status}.`);
    return answer;
  }

  async function loadSenders() {
    try {
      const { data } = await call('GET', '/senders');
      const list = $('senders');
      list.replaceChildren();
      for (const sender of data) {
        senderNames.set(sender.phone_number, sender.display_name);
        const option = document.createElement('option');
        option.value = sender.phone_number;
        option.label = sender.display_name;
        list.append(option);
      }
    } catch (error) {
      setStatus(error.message);
    }
  }

  function messageItem(message) {
    const item = document.createElement('li');
    item.className = `message ${message.from}`;
    const who = document.createElement('span');
    who.className = 'who';
    who.textContent = message.from === 'customer' ? 'You' : senderNames.get(chat.sender) || chat.sender;
    const text = document.createElement('span');
    text.className = 'text';
    text.textContent = message.body;
    const meta = document.createElement('span');
    meta.className = 'meta';
    const time = document.createElement('time');
    time.dateTime = message.at;
    time.textContent = new Date(message.at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
    meta.append(time);
    if (message.from === 'sender') {
      const status = document.createElement('span');
      status.className = 'state';
      meta.append(' · ', status);
    }
    item.append(who, text, meta);
    return item;
  }

  function render(messages) {
    const list = $('chat');
    for (const message of messages) {
      let item = shown.get(message.sid);
      if (!item) {
        item = messageItem(message);
        shown.set(message.sid, item);
        list.append(item);
      }
      const state = item.querySelector('.state');
      if (state && state.textContent !== message.status) {
        state.textContent = message.status;
        state.className = `state ${message.status}`;
      }
    }
    $('mark-read').disabled = !messages.some((message) => message.from === 'sender' && message.status === 'delivered');
  }

  async function refresh() {
    if (!chat) return;
    const opened = chat;
    const { data } = await call('GET', `/chat?${new URLSearchParams({ sender: opened.sender, phone: opened.phone })}`);
    // A chat opened meanwhile is not drawn over with this one.
    if (chat === opened) render(data);
  }

  function poll() {
    refresh().catch((error) => setStatus(error.message));
  }

  $('open-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const wanted = { sender: $('sender').value.trim(), phone: $('phone').value.trim(), name: $('name').value.trim() };
    try {
      const { data } = await call('GET', `/chat?${new URLSearchParams({ sender: wanted.sender, phone: wanted.phone })}`);
      chat = wanted;
      shown.clear();
      $('chat').replaceChildren();
      render(data);
      $('chat-title').textContent = `Chat with ${senderNames.get(wanted.sender) || wanted.sender}`;
      for (const id of ['chat-title', 'chat', 'write-form']) $(id).hidden = false;
      setStatus(`Chatting as ${wanted.phone}.`);
      if (!poller) poller = setInterval(poll, POLL_MS);
      $('message').focus();
    } catch (error) {
      setStatus(error.message);
    }
  });

  $('write-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = $('message').value;
    if (!chat || !body.trim()) return;
    const send = $('write-form').querySelector('button[type="submit"]');
    send.disabled = true;
    setStatus('Sending…');
    try {
      const { answered } = await call('POST', '/messages', { sender: chat.sender, phone: chat.phone, name: chat.name, body });
      $('message').value = '';
      // The chat shows the message before the status says it was sent.
      await refresh();
      setStatus(answered === 200 ? 'Sent.' : `Sent, but Parley answered ${answered}.`);
    } catch (error) {
      setStatus(error.message);
    } finally {
      send.disabled = false;
    }
  });

  // Enter sends, Shift+Enter starts a new line, as in WhatsApp's own web page.
  $('message').addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      $('write-form').requestSubmit();
    }
  });

  $('mark-read').addEventListener('click', async () => {
    if (!chat) return;
    try {
      const { marked } = await call('POST', '/read', { sender: chat.sender, phone: chat.phone });
      await refresh();
      setStatus(marked === 1 ? 'Marked 1 message read.' : `Marked ${marked} messages read.`);
    } catch (error) {
      setStatus(error.message);
    }
  });

  setStatus('Choose your number and a sender to start.');
  void loadSenders();
})();
