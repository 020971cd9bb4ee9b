import type http from 'node:http';
import { Transform, type Readable } from 'node:stream';
import type Koa from 'koa';
import { koaBody } from 'koa-body';
import { BadRequestError, PayloadTooLargeError } from '../../lib/errors.ts';
import { multipartBody, type MultipartKind } from './multipart.ts';

/**
 * How a route's request body is read: `json` (the default), `form` (`application/x-www-form-urlencoded`, as
 * carriers post their callbacks), `raw` (the exact bytes, for payloads whose signature covers them), or
 * `multipart` (one file upload, with that route's own limits), or `stream` (a large body of a given type, read
 * by the handler as it arrives, with that route's own limit).
 */
export type BodyKind = 'json' | 'form' | 'raw' | MultipartKind | StreamKind;

/** The body kind of a route that reads a large body (a CSV import) as a stream rather than holding it. */
export interface StreamKind {
  kind: 'stream';
  /** The media types taken, e.g. `text/csv`; the first is the one error messages name. */
  contentTypes: string[];
  maxBytes: number;
}

export function streamed(options: Omit<StreamKind, 'kind'>): StreamKind {
  return { kind: 'stream', ...options };
}

function formatBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MB` : `${Math.round(bytes / 1024)} KB`;
}

function tooLarge(limitBytes: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`The request body must not be larger than ${formatBytes(limitBytes)}.`);
}

/** JSON bodies only where a route takes one; malformed JSON is 400 and an oversized body 413, in our shapes. */
export function jsonBody(limitBytes: number): Koa.Middleware {
  const parse = koaBody({ json: true, urlencoded: false, text: false, multipart: false, jsonLimit: limitBytes, jsonStrict: false });
  return async (ctx, next) => {
    try {
      await parse(ctx, () => Promise.resolve());
    } catch (error) {
      const status = (error as { status?: number }).status;
      if (status === 413) throw tooLarge(limitBytes);
      if (status === 400 || status === 415 || status === 422) throw new BadRequestError('Malformed JSON body.');
      throw error;
    }
    await next();
  };
}

/**
 * The body's bytes, at most `limitBytes`: a larger one is refused by its declared length before it is read,
 * or as soon as it passes the limit, and the rest of it is read and thrown away so the 413 can still be sent.
 */
function readBytes(req: http.IncomingMessage, limitBytes: number): Promise<Buffer> {
  if (Number(req.headers['content-length']) > limitBytes) return Promise.reject(tooLarge(limitBytes));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (outcome: () => void) => {
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      outcome();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limitBytes) {
        chunks.push(chunk);
        return;
      }
      settle(() => reject(tooLarge(limitBytes)));
      req.resume();
    };
    const onEnd = () => settle(() => resolve(Buffer.concat(chunks)));
    const onError = () => settle(() => reject(new BadRequestError('The request body could not be read.')));
    const onClose = () => settle(() => reject(new BadRequestError('The request was interrupted.')));
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

/**
 * The exact bytes of the body on `ctx.state.rawBody`, for routes that verify a signature over them or read a
 * format of their own.
 */
export function rawBody(limitBytes: number): Koa.Middleware {
  return async (ctx, next) => {
    ctx.state.rawBody = await readBytes(ctx.req, limitBytes);
    await next();
  };
}

/**
 * `application/x-www-form-urlencoded` fields as flat text (`a[b]` stays a name, as carriers mean it; a name
 * given twice becomes a list), with the exact bytes kept on `ctx.state.rawBody` for signature checks.
 */
export function formBody(limitBytes: number): Koa.Middleware {
  return async (ctx, next) => {
    if (!ctx.is('application/x-www-form-urlencoded')) {
      throw new BadRequestError('The request body must be application/x-www-form-urlencoded.');
    }
    const bytes = await readBytes(ctx.req, limitBytes);
    const fields = new Map<string, string | string[]>();
    for (const [name, value] of new URLSearchParams(bytes.toString('utf8'))) {
      const existing = fields.get(name);
      fields.set(name, existing === undefined ? value : [existing, value].flat());
    }
    ctx.state.rawBody = bytes;
    // fromEntries defines each name as an own property, so `__proto__` is a field like any other.
    (ctx.request as { body?: unknown }).body = Object.fromEntries(fields);
    await next();
  };
}

/**
 * The request itself on `ctx.state.bodyStream`, unread, for the handler to consume as it arrives: a body of
 * another type is refused, one declared larger than the cap is refused unread, and the stream fails with the
 * 413 as soon as it passes the cap (the rest is read and thrown away so the answer can still be sent).
 */
export function streamBody(options: StreamKind): Koa.Middleware {
  return async (ctx, next) => {
    const [named = 'text/plain'] = options.contentTypes;
    if (!ctx.is(options.contentTypes)) throw new BadRequestError(`The request body must be ${named}.`);
    if (Number(ctx.get('content-length')) > options.maxBytes) throw tooLarge(options.maxBytes);
    let size = 0;
    const capped = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        size += chunk.length;
        callback(size > options.maxBytes ? tooLarge(options.maxBytes) : null, chunk);
      },
    });
    const request = ctx.req;
    request.on('error', (error) => capped.destroy(error));
    request.on('aborted', () => capped.destroy(new BadRequestError('The request was interrupted.')));
    capped.on('error', () => {
      request.unpipe(capped);
      request.resume();
    });
    ctx.state.bodyStream = request.pipe(capped) satisfies Readable;
    try {
      await next();
    } finally {
      // A handler that stopped early (a bad header row) leaves the rest unread: it is thrown away.
      request.unpipe(capped);
      request.resume();
    }
  };
}

/** The reader of one body kind; JSON and form bodies are capped at `limitBytes`, uploads by their own limit. */
export function bodyReader(kind: BodyKind, limitBytes: number): Koa.Middleware {
  if (kind === 'json') return jsonBody(limitBytes);
  if (kind === 'form') return formBody(limitBytes);
  if (kind === 'raw') return rawBody(limitBytes);
  if (kind.kind === 'stream') return streamBody(kind);
  return multipartBody({ ...kind, json: jsonBody(limitBytes) });
}
