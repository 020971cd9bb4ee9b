/**
 * The web call of the widget (web/web-call.js, served at /web-call.js): the console uses the same client the
 * widget does, loaded once as a script, rather than a copy of it.
 */
export interface WebCall {
  hangUp(): void;
}

interface WebCallOptions {
  onState: (state: string, detail: { reason?: string }) => void;
  onTranscript: (update: { role: 'assistant' | 'user'; text: string; final: boolean }) => void;
  onError: (error: Error & { kind?: string }) => void;
}

interface WebCallClient {
  start(options: WebCallOptions & { apiBase: string; assistantId: string; variables?: Record<string, unknown> }): WebCall;
}

declare global {
  interface Window {
    ParleyWebCall?: WebCallClient;
  }
}

let loading: Promise<WebCallClient> | undefined;

/** Loads /web-call.js ahead of the click, so that the call starts within it (browsers let audio play then). */
export function loadWebCall(): Promise<WebCallClient> {
  loading ??= new Promise<WebCallClient>((resolve, reject) => {
    if (window.ParleyWebCall) return resolve(window.ParleyWebCall);
    const script = document.createElement('script');
    script.src = '/web-call.js';
    script.onload = () => (window.ParleyWebCall ? resolve(window.ParleyWebCall) : reject(new Error('The web call client did not load.')));
    script.onerror = () => {
      loading = undefined;
      reject(new Error('The web call client could not be loaded.'));
    };
    document.head.append(script);
  });
  return loading;
}

export function startWebCall(assistantUuid: string, options: WebCallOptions): Promise<WebCall> {
  const start = (client: WebCallClient) => client.start({ ...options, apiBase: '/api', assistantId: assistantUuid });
  // Already loaded: started synchronously, inside the click.
  if (window.ParleyWebCall) return Promise.resolve(start(window.ParleyWebCall));
  return loadWebCall().then(start);
}
