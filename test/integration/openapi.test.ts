import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusesNul } from '../../src/api/openapi-requests.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

describe('the OpenAPI document', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(() => platform.close());

  it('is served at /api/openapi.json and is valid OpenAPI 3.1', async () => {
    const response = await platform.request('GET', '/openapi.json');
    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe('3.1.0');
    const validator = new Validator();
    const result = await validator.validate(response.body);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('describes every route the router serves, with its method', async () => {
    const document = (await platform.request('GET', '/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const served = platform.api.router.stack.flatMap((layer) =>
      layer.methods.filter((method) => method !== 'HEAD').map((method) => `${method} ${String(layer.path).replace(/^\/api/, '').replace(/:(\w+)/g, '{$1}')}`));
    expect(served.length).toBeGreaterThan(5);
    for (const route of served) {
      const [method, path] = route.split(' ') as [string, string];
      expect(document.paths[path]?.[method.toLowerCase()], route).toBeDefined();
    }
  });

  it('marks authenticated routes with the bearer scheme and documents their 401 and 422', async () => {
    const document = (await platform.request('GET', '/openapi.json')).body;
    expect(document.components.securitySchemes.bearerAuth).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
    const create = document.paths['/user/api-keys'].post;
    expect(create.security).toEqual([{ bearerAuth: [] }]);
    expect(create.requestBody.content['application/json'].schema.required).toEqual(['name']);
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '401', '422', '429', '500']));
    expect(document.paths['/auth/login'].post.security).toEqual([]);
  });

  it('documents each error status with the body of the route family, conversations and plan limits included', async () => {
    const document = (await platform.request('GET', '/openapi.json')).body;
    const schemaOf = (path: string, method: string, status: string) => document.paths[path][method].responses[status]?.content?.['application/json']?.schema;
    for (const [path, method] of [['/conversations', 'post'], ['/conversations/{uuid}', 'get'], ['/conversations/{uuid}/messages', 'post']] as const) {
      expect(schemaOf(path, method, '422')?.title, `${method} ${path}`).toBe('ConversationError');
    }
    expect(schemaOf('/conversations', 'post', '429')?.title).toBe('TooManyAttempts');
    // A message may also meet the free test-chat allowance, answered in the conversation family's shape.
    expect(schemaOf('/conversations/{uuid}/messages', 'post', '429').anyOf.map((schema: { title: string }) => schema.title)).toEqual(['ConversationError', 'TooManyAttempts']);
    expect(schemaOf('/user/knowledgebases', 'post', '422').anyOf.map((schema: { title: string }) => schema.title)).toEqual(['ValidationError', 'Message']);
    expect(schemaOf('/user/knowledgebases/{id}', 'get', '404').title).toBe('Error');
    expect(schemaOf('/user/assistant/{id}', 'get', '404').title).toBe('Message');
    expect(schemaOf('/docs/assets/{file}', 'get', '404').title).toBe('Message');
    expect(Object.keys(document.paths['/user/api-keys'].post.responses)).toEqual(['201', '400', '401', '413', '422', '429', '500']);
  });

  it('documents takeover and generate-reply with their families: automate\'s 401 {error}, the success family\'s coded errors', async () => {
    const document = (await platform.request('GET', '/openapi.json')).body;
    const schemaOf = (path: string, status: string) => document.paths[path].post.responses[status]?.content?.['application/json']?.schema;
    for (const path of ['/automate/conversations/{uuid}/disable-ai', '/automate/conversations/{uuid}/enable-ai']) {
      expect(schemaOf(path, '401')?.title, path).toBe('Error');
      expect(schemaOf(path, '404')?.title, path).toBe('ConversationError');
    }
    expect(schemaOf('/user/conversations/{uuid}/messages', '422')?.title).toBe('ConversationError');
    for (const path of ['/user/ai/generate-reply', '/ai/generate-reply']) {
      expect(schemaOf(path, '402')?.title, path).toBe('CodedError');
      expect(schemaOf(path, '404')?.title, path).toBe('CodedError');
      expect(schemaOf(path, '422')?.title, path).toBe('ValidationError');
      expect(schemaOf(path, '429')?.title, path).toBe('TooManyAttempts');
      expect(schemaOf(path, '500')?.properties?.error_code, path).toBeDefined();
    }
  });

  it('bounds every integer a client sends, so none reaches PostgreSQL out of its column', async () => {
    const document = (await platform.request('GET', '/openapi.json')).body;
    const unbounded: string[] = [];
    const walk = (schema: any, where: string): void => {
      if (!schema || typeof schema !== 'object') return;
      const types = [schema.type].flat();
      if (types.includes('integer') && (typeof schema.maximum !== 'number' || schema.maximum > Number.MAX_SAFE_INTEGER)) unbounded.push(where);
      for (const [key, value] of Object.entries(schema)) {
        if (key !== 'examples' && key !== 'default') walk(value, `${where}.${key}`);
      }
    };
    for (const [path, methods] of Object.entries<Record<string, any>>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(methods)) {
        for (const parameter of operation.parameters) walk(parameter.schema, `${method} ${path} ${parameter.name}`);
        for (const content of Object.values<any>(operation.requestBody?.content ?? {})) walk(content.schema, `${method} ${path} body`);
      }
    }
    expect(unbounded).toEqual([]);
  });

  it('says of requests what the validator does: unknown fields taken, no U+0000 anywhere, an empty body where none is required', async () => {
    const document = (await platform.request('GET', '/openapi.json')).body;
    const gaps: string[] = [];
    const walk = (schema: any, where: string): void => {
      if (!schema || typeof schema !== 'object') return;
      if (schema.additionalProperties === false) gaps.push(`${where}: refuses unknown properties, which are dropped`);
      const types = [schema.type].flat();
      if (types.includes('string') && schema.format === undefined && schema.enum === undefined && schema.const === undefined && !refusesNul(schema.pattern)) {
        gaps.push(`${where}: a string that may hold U+0000`);
      }
      // A free-form object (a map of names to values) keeps every key.
      const open = schema.additionalProperties !== undefined || schema.patternProperties !== undefined;
      if (types.includes('object') && open && schema.propertyNames?.pattern !== '^[^\\u0000]*$') gaps.push(`${where}: keys that may hold U+0000`);
      for (const [key, value] of Object.entries(schema)) {
        if (key !== 'examples' && key !== 'default') walk(value, `${where}.${key}`);
      }
    };
    for (const [path, methods] of Object.entries<Record<string, any>>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(methods)) {
        for (const parameter of operation.parameters) walk(parameter.schema, `${method} ${path} ${parameter.name}`);
        // A CSV import reads rows, refusing those with U+0000 one by one (leads/import.ts), not the request.
        const read = Object.entries<any>(operation.requestBody?.content ?? {}).filter(([type]) => !/csv|text\/plain/.test(type));
        for (const [, content] of read) walk(content.schema, `${method} ${path} body`);
      }
    }
    expect(gaps).toEqual([]);
    // A string with a pattern of its own is guarded against U+0000 in the same pattern.
    expect(new RegExp(document.paths['/user/folder'].post.requestBody.content['application/json'].schema.properties.name.pattern).test('a\u0000b')).toBe(false);
    // Free-form values (a call's variables) are JSON without U+0000 too.
    expect(document.paths['/user/web-calls'].post.requestBody.content['application/json'].schema.properties.variables.patternProperties['^(.*)$'])
      .toEqual({ $ref: '#/components/schemas/JsonWithoutNul' });
    // PUT /user/folder/{id} with no body renames nothing, and answers 200: its body is not required.
    expect(document.paths['/user/folder/{id}'].put.requestBody.required).toBe(false);
    expect(document.paths['/user/api-keys'].post.requestBody.required).toBe(true);
    // A GET reads no body; a signed carrier form does, fields used or not.
    expect(document.paths['/telephony/sandbox/hold-music'].get.requestBody).toBeUndefined();
    expect(document.paths['/telephony/sandbox/whisper'].post.requestBody.content['application/x-www-form-urlencoded']).toBeDefined();
  });

  it('has a readable reference page at /api/docs whose assets come from this server', async () => {
    const page = await fetch(`${platform.baseUrl}/api/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).not.toMatch(/https?:\/\//);
    for (const asset of ['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js']) {
      expect(html).toContain(`docs/assets/${asset}`);
      const file = await fetch(`${platform.baseUrl}/api/docs/assets/${asset}`);
      expect(file.status, asset).toBe(200);
      expect((await file.arrayBuffer()).byteLength, asset).toBeGreaterThan(1000);
    }
    expect((await fetch(`${platform.baseUrl}/api/docs/assets/..%2Fpackage.json`)).status).toBe(404);
  });
});
