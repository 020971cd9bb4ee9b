import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Router from '@koa/router';
import { isUuid } from '../lib/uuid.ts';

const webDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'web');

function demoPage(assistantId: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Parley widget demo</title>
  <style>
    body { font-family: Georgia, serif; max-width: 680px; margin: 40px auto; padding: 0 20px; color: #333; line-height: 1.6; }
    code { background: #f2f2f2; padding: 2px 5px; border-radius: 4px; }
  </style>
</head>
<body>
  <h1>Parley widget demo</h1>
  <p>This page stands in for your website. The chat button in the corner is the widget, added with one tag:</p>
  <p><code>&lt;script src="/widget.js" data-assistant-id="${assistantId}" async&gt;&lt;/script&gt;</code></p>
  <p>Messages here start a <em>widget</em> conversation, charged to the assistant owner's balance.</p>
  <p>The <strong>Call</strong> button at the top of the chat panel starts a voice call with the same assistant through
    your microphone, with the live transcript in the panel; calls are charged per minute like phone calls.</p>
  <script src="/widget.js" data-assistant-id="${assistantId}" async></script>
</body>
</html>`;
}

/** The embeddable widget script and a demo page that embeds it, outside `/api`. */
export function webRoutes(): Router {
  const router = new Router();
  // widget.js loads its stylesheet, and web-call.js when a visitor starts a voice call, from the same server;
  // web-call.js its audio worklets from beside itself.
  for (const file of ['widget.js', 'widget.css', 'web-call.js', 'web-call-worklet.js']) {
    router.get(`/${file}`, (ctx) => {
      ctx.type = file.endsWith('.css') ? 'text/css; charset=utf-8' : 'application/javascript; charset=utf-8';
      ctx.set('Cache-Control', 'public, max-age=300');
      ctx.body = fs.createReadStream(path.join(webDir, file));
    });
  }
  router.get('/widget/demo', (ctx) => {
    const assistantId = typeof ctx.query.assistant_id === 'string' ? ctx.query.assistant_id : '';
    ctx.type = 'text/html; charset=utf-8';
    if (!isUuid(assistantId)) {
      ctx.status = 400;
      ctx.body = '<!doctype html><title>Parley widget demo</title><p>Add <code>?assistant_id=</code> with the UUID of one of your assistants.</p>';
      return;
    }
    ctx.body = demoPage(assistantId);
  });
  return router;
}
