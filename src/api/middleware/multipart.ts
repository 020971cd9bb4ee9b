import type Koa from 'koa';
import busboy from 'busboy';
import { BadRequestError, ValidationError } from '../../lib/errors.ts';
import { StoredFileTooLargeError, type FileStorage } from '../../providers/storage/index.ts';
import { nullCharacterMessage } from '../validation.ts';

/** The upload of a multipart request, on `ctx.state.upload`; deleted after the request unless claimed. */
export interface Upload {
  key: string;
  fileName: string;
  mimeType: string;
  size: number;
  /** Set by whoever keeps the file (the document that now points at it). */
  claimed: boolean;
}

const forbiddenKeys = new Set(['__proto__', 'constructor', 'prototype']);

/** `links[0][link]` → `body.links[0].link`, as PHP and Laravel read form fields. */
export function setField(body: Record<string, unknown>, name: string, value: string): void {
  const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(name);
  if (!match?.[1]) return;
  const path = [match[1], ...(match[2]?.match(/\[([^[\]]*)\]/g) ?? []).map((part) => part.slice(1, -1))];
  if (path.some((key) => forbiddenKeys.has(key))) return;
  let target: Record<string, unknown> | unknown[] = body;
  for (let index = 0; index < path.length; index++) {
    const key = path[index] ?? '';
    const last = index === path.length - 1;
    const nextKey = path[index + 1];
    const container = (): Record<string, unknown> | unknown[] => (nextKey === '' || /^\d+$/.test(nextKey ?? '') ? [] : {});
    if (Array.isArray(target)) {
      const position = key === '' ? target.length : Number(key);
      if (!Number.isInteger(position) || position > 1000) return;
      if (last) target[position] = value;
      else target = (target[position] ??= container()) as Record<string, unknown> | unknown[];
    } else if (last) {
      target[key] = value;
    } else {
      const existing = target[key];
      target = (existing !== null && typeof existing === 'object' ? existing : (target[key] = container())) as Record<string, unknown> | unknown[];
    }
  }
}

function formatKilobytes(bytes: number): string {
  return `${Math.floor(bytes / 1024)} kilobytes`;
}

/** The body kind of a route that takes one file upload, with the limits and storage naming of that route. */
export interface MultipartKind {
  kind: 'multipart';
  storage: FileStorage;
  maxFileBytes: number;
  /** The one file field read; other file fields are drained and ignored. */
  fileField: string;
  /** The storage key of an upload, from the file name the client gave. */
  keyFor: (fileName: string) => string;
}

/** Declares a route's body as `multipart/form-data` with one file (or JSON, which such routes take too). */
export function multipart(options: Omit<MultipartKind, 'kind'>): MultipartKind {
  return { kind: 'multipart', ...options };
}

/**
 * `multipart/form-data` for routes that take a file, streamed to storage with the size cap enforced while
 * streaming: past `maxFileBytes` nothing more is written, the partial file is removed and the request is
 * answered 422. Other content types go to `json` (such routes take JSON too).
 */
export function multipartBody(options: MultipartKind & { json: Koa.Middleware }): Koa.Middleware {
  const tooLarge = () => ValidationError.of(options.fileField, `The ${options.fileField} field must not be greater than ${formatKilobytes(options.maxFileBytes)}.`);
  return async (ctx, next) => {
    if (!ctx.is('multipart/form-data')) {
      await options.json(ctx, next);
      return;
    }
    // Form fields and multipart framing add a little; a declared length far past the cap is refused unread.
    if (Number(ctx.get('content-length')) > options.maxFileBytes + 1024 * 1024) throw tooLarge();

    const body: Record<string, unknown> = {};
    let upload: Upload | undefined;
    let truncated = false;
    // The file name is stored with the document, so it is held to the rule of every text field.
    let nulInFileName = false;
    const writes: Promise<unknown>[] = [];
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: ctx.req.headers,
        limits: { fileSize: options.maxFileBytes, files: 5, fields: 200, fieldSize: 64 * 1024, parts: 210 },
      });
    } catch {
      throw new BadRequestError('Malformed multipart body.');
    }
    const finished = new Promise<void>((resolve, reject) => {
      parser.on('field', (name, value) => setField(body, name, value));
      parser.on('file', (name, stream, info) => {
        if (name === options.fileField && info.filename?.includes('\u0000')) nulInFileName = true;
        if (name !== options.fileField || upload || nulInFileName) {
          stream.resume();
          return;
        }
        const current: Upload = { key: options.keyFor(info.filename || 'upload'), fileName: info.filename || 'upload', mimeType: info.mimeType, size: 0, claimed: false };
        upload = current;
        // busboy stops passing data on at the limit and ends the stream: nothing past it reaches storage, and
        // the rest of the request is read and thrown away.
        stream.on('limit', () => {
          truncated = true;
        });
        writes.push(options.storage.writeStream(current.key, stream, { maxBytes: options.maxFileBytes })
          .then(({ size }) => { current.size = size; })
          .catch((error: unknown) => {
            if (error instanceof StoredFileTooLargeError) truncated = true;
            else throw error;
          }));
      });
      parser.on('close', () => resolve());
      parser.on('error', (error: Error) => reject(new BadRequestError(`Malformed multipart body: ${error.message}`)));
      ctx.req.on('aborted', () => reject(new BadRequestError('The upload was interrupted.')));
    });
    ctx.req.pipe(parser);
    try {
      await finished;
      await Promise.all(writes);
      if (truncated) throw tooLarge();
      if (nulInFileName) throw ValidationError.of(options.fileField, nullCharacterMessage(options.fileField));
      (ctx.request as { body?: unknown }).body = body;
      ctx.state.upload = upload;
      await next();
    } finally {
      const stored = upload;
      if (stored && !stored.claimed) await options.storage.delete(stored.key);
    }
  };
}
