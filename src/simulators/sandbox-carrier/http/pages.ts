import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Router from '@koa/router';

const webDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'web');

/**
 * The sandbox carrier's browser pages and their scripts: the softphone, `GET /sandbox/phone` (softphone.ts has its
 * socket), and the WhatsApp phone, `GET /sandbox/whatsapp` (whatsapp-page.ts has its JSON routes). Mounted only
 * when the sandbox is the carrier, so elsewhere all are 404.
 */
export function sandboxPages(): Router {
  const router = new Router();
  const files: Record<string, [string, string]> = {
    '/sandbox/phone': ['softphone.html', 'text/html; charset=utf-8'],
    '/sandbox/phone.js': ['softphone.js', 'application/javascript; charset=utf-8'],
    '/sandbox/whatsapp': ['whatsapp-phone.html', 'text/html; charset=utf-8'],
    '/sandbox/whatsapp.js': ['whatsapp-phone.js', 'application/javascript; charset=utf-8'],
  };
  for (const [route, [file, type]] of Object.entries(files)) {
    router.get(route, (ctx) => {
      ctx.type = type;
      ctx.set('Cache-Control', 'no-cache');
      ctx.body = fs.createReadStream(path.join(webDir, file));
    });
  }
  return router;
}
