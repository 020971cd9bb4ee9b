import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import Router from '@koa/router';
import * as esbuild from 'esbuild';

const consoleDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'web', 'console');
const ASSETS = '/app/assets/';

interface Asset {
  body: Uint8Array;
  /** The same, gzipped once here rather than per request; absent for source maps. */
  gzipped: Uint8Array | undefined;
  type: string;
}

/** The console as the browser receives it: its page and the hashed files the page names. */
export interface ConsoleBundle {
  page: string;
  assets: Map<string, Asset>;
}

const types: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

function page(script: string, style: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Parley console</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="${ASSETS}${style}">
  <script type="module" src="${ASSETS}${script}"></script>
</head>
<body>
  <div id="app"><noscript><h1>Parley console</h1><p>The console needs JavaScript.</p></noscript></div>
</body>
</html>`;
}

/**
 * Bundles web/console with esbuild in memory: one minified ES module and one stylesheet, named by their content's
 * hash so the browser may keep them for good. Running at start-up instead of as a build step keeps `npm ci` plus
 * `npm start` the whole install, and the image without a build stage (docs/decisions.md, "The console").
 */
async function build(): Promise<ConsoleBundle> {
  // Built once: esbuild's helper process is stopped after, not kept for the life of the api.
  const result = await esbuild.build({
    absWorkingDir: consoleDir,
    entryPoints: ['src/main.tsx'],
    outdir: 'out',
    entryNames: 'console-[hash]',
    chunkNames: 'chunk-[hash]',
    // The chart's library is loaded by the overview only, not with the first page.
    splitting: true,
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2022'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    sourcemap: 'linked',
    write: false,
    logLevel: 'silent',
  }).finally(() => esbuild.stop());
  const assets = new Map<string, Asset>();
  for (const file of result.outputFiles) {
    const name = path.basename(file.path);
    const extension = path.extname(name);
    assets.set(name, { body: file.contents, gzipped: extension === '.map' ? undefined : gzipSync(file.contents, { level: 9 }), type: types[extension] ?? 'application/octet-stream' });
  }
  const named = (extension: string) => [...assets.keys()].find((name) => name.startsWith('console-') && name.endsWith(extension));
  const script = named('.js');
  const style = named('.css');
  if (!script || !style) throw new Error('the console bundle lacks its script or stylesheet');
  return { page: page(script, style), assets };
}

let building: Promise<ConsoleBundle> | undefined;

/** The console's bundle, built once per process on first use (a failed build is tried again next time). */
export function consoleBundle(): Promise<ConsoleBundle> {
  building ??= build().catch((error: unknown) => {
    building = undefined;
    throw error;
  });
  return building;
}

/**
 * The page's Content-Security-Policy: everything from this origin, no inline script or style. `blob:` scripts are
 * the web call's audio worklets (web/web-call.js builds them from its own source); the media gateway's origin is
 * where a web call's socket goes, and the public URL's where recording links point.
 */
export function consolePolicy(origins: { publicUrl: string; mediaUrl: string }): string {
  const publicOrigin = new URL(origins.publicUrl).origin;
  const mediaOrigin = new URL(origins.mediaUrl).origin;
  return [
    "default-src 'self'",
    "script-src 'self' blob:",
    "style-src 'self'",
    "img-src 'self' data:",
    `media-src 'self' blob: ${publicOrigin}`,
    `connect-src 'self' ${mediaOrigin}`,
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * The users' console at `/app` (every path below it is the same page, which routes in the browser) and its files
 * at `/app/assets/`; the site's root sends a browser there.
 */
export function consoleRoutes(origins: { publicUrl: string; mediaUrl: string }): Router {
  const router = new Router();
  const policy = consolePolicy(origins);
  router.get('/', async (ctx, next) => {
    if (ctx.accepts('html') === 'html') ctx.redirect('/app');
    else await next();
  });
  router.get(`${ASSETS}:file`, async (ctx) => {
    const asset = (await consoleBundle()).assets.get(ctx.params.file ?? '');
    if (!asset) return;
    ctx.type = asset.type;
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.vary('Accept-Encoding');
    if (asset.gzipped && ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
      ctx.set('Content-Encoding', 'gzip');
      ctx.body = Buffer.from(asset.gzipped);
    } else ctx.body = Buffer.from(asset.body);
  });
  router.get(/^\/app(?:\/.*)?$/, async (ctx) => {
    const bundle = await consoleBundle();
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('Content-Security-Policy', policy);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.body = bundle.page;
  });
  return router;
}
