/**
 * The signed-in user's session token, kept in sessionStorage: it survives a reload of the tab and dies with it,
 * and no cookie carries it (the API takes it as a bearer token, so no request is sent with it unasked).
 */
export interface Session {
  token: string;
  name: string;
  email: string;
  /** Whether the user is a white-label admin; unknown until asked. */
  admin?: boolean;
}

const KEY = 'parley:session';
const listeners = new Set<() => void>();

function storage(): Storage | undefined {
  try {
    return window.sessionStorage;
  } catch {
    // Storage refused (a privacy setting): the session lives in memory only and a reload asks to sign in again.
    return undefined;
  }
}

let current: Session | null = (() => {
  const text = storage()?.getItem(KEY);
  if (!text) return null;
  try {
    const parsed = JSON.parse(text) as Partial<Session>;
    return typeof parsed.token === 'string' ? { token: parsed.token, name: parsed.name ?? '', email: parsed.email ?? '', ...(typeof parsed.admin === 'boolean' ? { admin: parsed.admin } : {}) } : null;
  } catch {
    return null;
  }
})();

export function readSession(): Session | null {
  return current;
}

export function saveSession(session: Session | null): void {
  current = session;
  if (session) storage()?.setItem(KEY, JSON.stringify(session));
  else storage()?.removeItem(KEY);
  for (const listener of listeners) listener();
}

export function onSessionChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
