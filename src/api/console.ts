import { createHash } from 'node:crypto';
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

/** The console as the browser receives it: its page, the hashed files the page names, and its one inline script's hash. */
export interface ConsoleBundle {
  page: string;
  assets: Map<string, Asset>;
  /** The Content-Security-Policy source that lets the page's inline script (src/early.ts) run: `'sha256-…'`. */
  earlySource: string;
}

const types: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

function page(script: string, style: string, early: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Parley console</title>
  <link rel="icon" href="data:,">
  <script>${early}</script>
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
 * hash so the browser may keep them for good, and the small script written into the page itself (src/early.ts). Running at start-up instead of as a build step keeps `npm ci` plus
 * `npm start` the whole install, and the image without a build stage (docs/decisions.md, "The console").
 */
async function build(): Promise<ConsoleBundle> {
  const common = { absWorkingDir: consoleDir, bundle: true, minify: true, target: 'es2022', write: false, logLevel: 'silent' } as const;
  // Built once: esbuild's helper process is stopped after, not kept for the life of the api.
  const [result, earlyResult] = await Promise.all([esbuild.build({
    ...common,
    entryPoints: ['src/main.tsx'],
    outdir: 'out',
    entryNames: 'console-[hash]',
    chunkNames: 'chunk-[hash]',
    // The chart's library is loaded by the overview only, not with the first page.
    splitting: true,
    format: 'esm',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    sourcemap: 'linked',
  }), esbuild.build({ ...common, entryPoints: ['src/early.ts'], format: 'iife' })]).finally(() => esbuild.stop());
  const assets = new Map<string, Asset>();
  for (const file of result.outputFiles) {
    const name = path.basename(file.path);
    const extension = path.extname(name);
    assets.set(name, { body: file.contents, gzipped: extension === '.map' ? undefined : gzipSync(file.contents, { level: 9 }), type: types[extension] ?? 'application/octet-stream' });
  }
  const named = (extension: string) => [...assets.keys()].find((name) => name.startsWith('console-') && name.endsWith(extension));
  const script = named('.js');
  const style = named('.css');
  const early = earlyResult.outputFiles[0]?.text.trim();
  if (!script || !style || !early) throw new Error('the console bundle lacks its script, stylesheet or early script');
  if (/<\/script/i.test(early)) throw new Error('the early script cannot be written inline: it holds </script');
  // Inline, so that a cold page need not fetch it before its requests go out, and written before the stylesheet,
  // which an inline script after it would wait for.
  return { page: page(script, style, early), assets, earlySource: `'sha256-${createHash('sha256').update(early).digest('base64')}'` };
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
 * The page's Content-Security-Policy: everything from this origin (the web call's audio worklets too, served beside
 * web/web-call.js), no inline style, and no inline script but the page's own early one, allowed by its hash; the
 * media gateway's origin is where a web call's socket goes, and the public URL's where recording links point.
 */
export function consolePolicy(origins: { publicUrl: string; mediaUrl: string }, earlySource: string): string {
  const publicOrigin = new URL(origins.publicUrl).origin;
  const mediaOrigin = new URL(origins.mediaUrl).origin;
  return [
    "default-src 'self'",
    `script-src 'self' ${earlySource}`,
    "style-src 'self'",
    "img-src 'self' data:",
    `media-src 'self' blob: ${publicOrigin}`,
    `connect-src 'self' ${mediaOrigin}`,
    "worker-src 'self'",
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
    ctx.set('Content-Security-Policy', consolePolicy(origins, bundle.earlySource));
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.body = bundle.page;
  });
  return router;
}
