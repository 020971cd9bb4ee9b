import { createParser } from 'eventsource-parser';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, apiError, ok } from '../api/client.ts';
import { readSession } from '../session.ts';
import type { Assistant } from './assistant-sections.tsx';
import { loadWebCall, startWebCall, type WebCall } from './web-call.ts';

interface Line {
  id: number;
  role: 'assistant' | 'user' | 'tool' | 'error';
  text: string;
  final: boolean;
}

let lineIds = 0;
const line = (role: Line['role'], text: string, final = true): Line => ({ id: ++lineIds, role, text, final });

/** Sends a chat message and reads the reply as server-sent events: `token`, `tool_call`, then `done` or `error`. */
async function sendMessage(conversation: string, message: string, on: { token: (text: string) => void; tool: (name: string) => void }): Promise<string> {
  const session = readSession();
  const response = await fetch(`/api/conversations/${conversation}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...(session ? { authorization: `Bearer ${session.token}` } : {}) },
    body: JSON.stringify({ message }),
  });
  if (!response.ok || !response.body) throw apiError(response, await response.json().catch(() => undefined));
  let final: string | undefined;
  let failure: string | undefined;
  const parser = createParser({
    onEvent(event) {
      const data = JSON.parse(event.data) as { text?: string; name?: string; message?: string; error?: string };
      if (event.event === 'token') on.token(data.text ?? '');
      else if (event.event === 'tool_call') on.tool(data.name ?? 'a tool');
      else if (event.event === 'done') final = data.message ?? '';
      else if (event.event === 'error') failure = data.error ?? 'The reply failed.';
    },
  });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(value);
  }
  if (failure !== undefined) throw new Error(failure);
  return final ?? '';
}

/** The conversation so far, read as it grows. */
function Transcript({ lines, label }: { lines: Line[]; label: string }) {
  // The list scrolls to its newest line; the page around it stays where the reader left it.
  const list = useRef<HTMLOListElement>(null);
  useEffect(() => {
    if (list.current) list.current.scrollTop = list.current.scrollHeight;
  }, [lines]);
  return (
    <ol ref={list} class="chat" aria-label={label} aria-live="polite">
      {lines.map((item) => (
        <li key={item.id} class={`msg ${item.role}${item.final ? '' : ' partial'}`}>
          <span class="visually-hidden">{item.role === 'user' ? 'You: ' : item.role === 'assistant' ? 'Assistant: ' : ''}</span><span class="text">{item.text}</span>
        </li>
      ))}
    </ol>
  );
}

/** A free test chat with the assistant (`type: test`), streamed, and a web call with the microphone. */
export function TryIt({ assistant }: { assistant: Assistant }) {
  const [conversation, setConversation] = useState<string>();
  const [chat, setChat] = useState<Line[]>([]);
  const [busy, setBusy] = useState(false);
  const [text, setText] = useState('');

  const start = async () => {
    setBusy(true);
    try {
      const started = await ok(api.POST('/conversations', { body: { assistant_id: assistant.uuid, type: 'test' } }));
      setConversation(started.conversation_id);
      setChat(started.history.map((item) => line(item.role, item.content)));
    } catch (error) {
      setChat([line('error', (error as Error).message)]);
    } finally {
      setBusy(false);
    }
  };

  const send = async (event: Event) => {
    event.preventDefault();
    const message = text.trim();
    if (!conversation || !message || busy) return;
    setText('');
    setBusy(true);
    const reply = line('assistant', '', false);
    let lines = [...chat, line('user', message), reply];
    const show = () => setChat([...lines]);
    show();
    try {
      const final = await sendMessage(conversation, message, {
        token: (token) => {
          reply.text += token;
          show();
        },
        tool: (name) => {
          lines = [...lines.slice(0, -1), line('tool', `Used ${name.replace(/_/g, ' ')}`), reply];
          show();
        },
      });
      reply.text = final;
      reply.final = true;
    } catch (error) {
      lines = [...lines.filter((item) => item !== reply || item.text), line('error', (error as Error).message)];
      reply.final = true;
    } finally {
      show();
      setBusy(false);
    }
  };

  return (
    <section class="card try" aria-labelledby="try-chat">
      <h2 id="try-chat">Try it: chat</h2>
      {!conversation ? (
        <>
          <p class="hint">A test chat is free and is not charged to your balance.</p>
          <button type="button" onClick={() => void start()} disabled={busy}>Start a test chat</button>
          {chat.length > 0 && <Transcript lines={chat} label="Chat" />}
        </>
      ) : (
        <>
          <Transcript lines={chat} label="Chat" />
          <form class="chat-form" onSubmit={(event) => void send(event)}>
            <label for="chat-message" class="visually-hidden">Your message</label>
            <input id="chat-message" value={text} onInput={(event) => setText(event.currentTarget.value)} placeholder="Write a message…" maxLength={2000} autoComplete="off" />
            <button type="submit" class="primary" disabled={busy || !text.trim()}>Send</button>
          </form>
          <button type="button" class="quiet" onClick={() => { setConversation(undefined); setChat([]); }}>Start over</button>
        </>
      )}
      <WebCallPanel assistant={assistant} />
    </section>
  );
}

function WebCallPanel({ assistant }: { assistant: Assistant }) {
  const [call, setCall] = useState<WebCall>();
  const [state, setState] = useState('');
  const [lines, setLines] = useState<Line[]>([]);
  useEffect(() => {
    loadWebCall().catch(() => undefined);
  }, []);
  useEffect(() => () => call?.hangUp(), [call]);

  const begin = () => {
    setLines([]);
    setState('Connecting…');
    const shown: Line[] = [];
    startWebCall(assistant.uuid, {
      onState: (next, detail) => {
        setState({ connecting: 'Connecting…', listening: 'Listening', speaking: 'The assistant is speaking', ended: detail.reason ?? 'The call ended.' }[next] ?? next);
        if (next === 'ended') setCall(undefined);
      },
      onTranscript: ({ role, text, final }) => {
        const last = shown.at(-1);
        if (last && last.role === role && !last.final) {
          last.text = text;
          last.final = final;
        } else shown.push(line(role, text, final));
        setLines([...shown]);
      },
      onError: (error) => {
        shown.push(line('error', error.message));
        setLines([...shown]);
      },
    }).then(setCall, (error: unknown) => {
      setState('');
      setLines([line('error', (error as Error).message)]);
    });
  };

  return (
    <div class="web-call">
      <h2>Try it: web call</h2>
      <p class="hint">Talk with the assistant through your microphone. Web calls are charged per minute like phone calls.</p>
      {call ? <button type="button" class="danger" onClick={() => call.hangUp()}>Hang up</button> : <button type="button" onClick={begin}>Start a web call</button>}
      {state && <p role="status" class="call-state">{state}</p>}
      {lines.length > 0 && <Transcript lines={lines} label="Live transcript" />}
    </div>
  );
}
