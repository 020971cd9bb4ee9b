import { request as httpRequest, type Dispatcher, type FormData } from 'undici';
import { SpeechProviderError } from './stt/types.ts';

/**
 * What the hosted speech adapters share: one POST with the failure told as a SpeechProviderError, and a
 * streamed PCM16 body read as whole samples. They do not retry themselves: a sentence or an utterance is
 * worth a second try only while the caller is still listening, which the voice engine knows and they do not.
 */

/** Statuses the same request may get past: the provider was busy, rate-limited or failed on its side. */
const RETRYABLE = new Set([408, 409, 425, 429, 500, 502, 503, 504]);

/** Whether a failed HTTP status (or WebSocket handshake status) may succeed when tried again. */
export function isRetryableStatus(status: number): boolean {
  return RETRYABLE.has(status) || status >= 500;
}

/** The provider's own words from an error body: OpenAI `{error:{message}}`, ElevenLabs `{detail}`, Deepgram `{err_msg}`. */
export function errorDetail(text: string): string {
  try {
    const parsed = JSON.parse(text) as {
      error?: { message?: unknown } | string;
      detail?: { message?: unknown } | { msg?: unknown }[] | string;
      err_msg?: unknown;
      message?: unknown;
    };
    const detail = Array.isArray(parsed.detail) ? parsed.detail[0]?.msg : typeof parsed.detail === 'object' ? parsed.detail.message : parsed.detail;
    const message = typeof parsed.error === 'string' ? parsed.error : parsed.error?.message ?? detail ?? parsed.err_msg ?? parsed.message;
    if (typeof message === 'string') return message.slice(0, 300);
  } catch {
    // not JSON: the text itself says what went wrong
  }
  return text.slice(0, 300) || 'no details';
}

/**
 * The error for a refused request. A refused credential is told without the provider's words, which some
 * providers fill with part of the key.
 */
export function statusError(provider: string, status: number, detail: string): SpeechProviderError {
  const retryable = isRetryableStatus(status);
  if (status === 401 || status === 403) return new SpeechProviderError(`${provider} refused the credentials (${status})`, { retryable });
  return new SpeechProviderError(`${provider} answered ${status}: ${detail}`, { retryable });
}

export interface SpeechPost {
  url: string;
  headers: Record<string, string>;
  body: string | FormData;
  signal: AbortSignal;
  /** The longest wait for the response to start, and between two pieces of its body. */
  timeoutMs: number;
  dispatcher: Dispatcher;
}

/** POSTs and resolves with a 2xx response; rejects with SpeechProviderError, or with the abort reason when aborted. */
export async function postSpeech(provider: string, post: SpeechPost): Promise<Dispatcher.ResponseData> {
  let response: Dispatcher.ResponseData;
  try {
    response = await httpRequest(post.url, {
      method: 'POST',
      headers: post.headers,
      body: post.body,
      signal: post.signal,
      dispatcher: post.dispatcher,
      headersTimeout: post.timeoutMs,
      bodyTimeout: post.timeoutMs,
    });
  } catch (error) {
    if (post.signal.aborted) throw error;
    throw new SpeechProviderError(`${provider} could not be reached: ${(error as Error).message}`, { retryable: true, cause: error });
  }
  if (response.statusCode >= 200 && response.statusCode < 300) return response;
  const text = await response.body.text().catch(() => '');
  throw statusError(provider, response.statusCode, errorDetail(text));
}

/**
 * The samples of a little-endian PCM16 byte stream. Chunks split anywhere, also inside a sample: the odd byte
 * is kept and joined to the next chunk. A trailing odd byte at the end is half a sample and is dropped.
 */
export async function* pcm16Samples(bytes: AsyncIterable<Uint8Array>): AsyncGenerator<Int16Array> {
  let carry: number | undefined;
  for await (const chunk of bytes) {
    const total = chunk.length + (carry === undefined ? 0 : 1);
    const samples = new Int16Array(total >> 1);
    if (samples.length === 0) {
      carry = chunk.length === 1 ? chunk[0] : carry;
      continue;
    }
    let i = 0;
    let at = 0;
    if (carry !== undefined) {
      samples[i++] = carry | (chunk[at++]! << 8);
    }
    for (; i < samples.length; i++, at += 2) samples[i] = chunk[at]! | (chunk[at + 1]! << 8);
    carry = (total & 1) === 1 ? chunk[chunk.length - 1] : undefined;
    yield samples;
  }
}

/**
 * The PCM16 of a streamed response body, ending quietly when `signal` aborts (the caller stopped listening)
 * and failing with a retryable SpeechProviderError when the stream breaks off.
 */
export async function* streamPcm16(provider: string, response: Dispatcher.ResponseData, signal: AbortSignal): AsyncGenerator<Int16Array> {
  try {
    yield* pcm16Samples(response.body as AsyncIterable<Uint8Array>);
  } catch (error) {
    if (signal.aborted) return;
    throw new SpeechProviderError(`${provider} audio stream broke off: ${(error as Error).message}`, { retryable: true, cause: error });
  } finally {
    // Read to its end, the connection is kept for the next sentence; left early, it is closed.
    if (!response.body.readableEnded) response.body.destroy();
  }
}
