import type Koa from 'koa';
import { koaBody } from 'koa-body';
import { BadRequestError, PayloadTooLargeError } from '../../lib/errors.ts';

function formatBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MB` : `${Math.round(bytes / 1024)} KB`;
}

/** JSON bodies only where a route takes one; malformed JSON is 400 and an oversized body 413, in our shapes. */
export function jsonBody(limitBytes: number): Koa.Middleware {
  const parse = koaBody({ json: true, urlencoded: false, text: false, multipart: false, jsonLimit: limitBytes, jsonStrict: false });
  return async (ctx, next) => {
    try {
      await parse(ctx, () => Promise.resolve());
    } catch (error) {
      const status = (error as { status?: number }).status;
      if (status === 413) throw new PayloadTooLargeError(`The request body must not be larger than ${formatBytes(limitBytes)}.`);
      if (status === 400 || status === 415 || status === 422) throw new BadRequestError('Malformed JSON body.');
      throw error;
    }
    await next();
  };
}
