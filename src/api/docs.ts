import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { Type } from '@sinclair/typebox';
import { NotFoundError } from '../lib/errors.ts';
import { defineRoute, type RouteDefinition } from './routing.ts';

const swaggerUiDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const assets: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Parley API reference</title>
  <link rel="icon" href="docs/assets/favicon-32x32.png">
  <link rel="stylesheet" href="docs/assets/swagger-ui.css">
</head>
<body>
  <div id="reference"></div>
  <script src="docs/assets/swagger-ui-bundle.js"></script>
  <script src="docs/assets/swagger-ui-standalone-preset.js"></script>
  <script>
    window.ui = SwaggerUIBundle({ url: 'openapi.json', dom_id: '#reference', deepLinking: true,
      presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout' });
  </script>
</body>
</html>`;

/** `GET /api/openapi.json` and a reference page for it at `GET /api/docs`, served from swagger-ui-dist (no CDN). */
export function docsRoutes(document: () => Record<string, unknown>): RouteDefinition[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/openapi.json',
      tag: 'Documentation',
      summary: 'This OpenAPI 3.1 document',
      auth: 'public',
      responses: { 200: { description: 'The document', schema: Type.Object({ openapi: Type.String() }) } },
      handle: () => ({ body: document() }),
    }),
    defineRoute({
      method: 'GET',
      path: '/docs',
      tag: 'Documentation',
      summary: 'A readable reference of the API',
      auth: 'public',
      responses: { 200: { description: 'An HTML page', schema: Type.String(), contentType: 'text/html' } },
      handle: () => ({ body: page, type: 'text/html; charset=utf-8' }),
    }),
    defineRoute({
      method: 'GET',
      path: '/docs/assets/{file}',
      tag: 'Documentation',
      summary: 'Files of the reference page',
      auth: 'public',
      params: Type.Object({ file: Type.String({ maxLength: 64 }) }),
      responses: { 200: { description: 'The file', schema: Type.String(), contentType: 'application/octet-stream' } },
      handle: ({ params }) => {
        const type = assets[params.file];
        if (!type) throw new NotFoundError('Not Found.');
        return {
          body: fs.createReadStream(path.join(swaggerUiDir, params.file)),
          type,
          headers: { 'Cache-Control': 'public, max-age=86400' },
        };
      },
    }),
  ];
}
