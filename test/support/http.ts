/** Requests to the API as a client sends them, for tests and benchmarks alike (no test-runner imports here). */

export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  token?: string;
  headers?: Record<string, string>;
}

export type ApiRequest = <T = any>(method: string, path: string, options?: RequestOptions) => Promise<TestResponse<T>>;

/** Sends JSON to `{baseUrl}/api{path}` with an optional bearer token; the body comes back parsed when it is JSON. */
export function apiRequest(baseUrl: string): ApiRequest {
  return async (method, path, options = {}) => {
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${baseUrl}/api${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: the caller sees the text
    }
    return { status: response.status, headers: response.headers, body: parsed as any, text };
  };
}
