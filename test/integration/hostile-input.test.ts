import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

// Inputs an OpenAPI fuzzer sent that reached PostgreSQL and answered 500 (issue 13 §2): each must be a 422.

const NUL = '\u0000';
const pastBigint = '135943751920316917481472';
const nulText = (field: string) => `The ${field} field must not contain null characters.`;
const someUuid = '6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b';

/** A request with any method, TRACE included (fetch refuses to send it). */
function rawRequest(baseUrl: string, method: string, path: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: unknown }> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${baseUrl}/api${path}`, { method }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => {
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: the assertion on the body shows the text
        }
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body });
      });
    });
    request.on('error', reject).end();
  });
}

describe('inputs PostgreSQL cannot take', () => {
  let platform: TestPlatform;
  let user: TestUser;
  beforeAll(async () => {
    platform = await startTestPlatform();
    user = await createTestUser(platform.database.knex);
  });
  afterAll(() => platform.close());

  const send = (method: string, path: string, body?: unknown) => platform.request(method, path, { token: user.token, body });

  it('refuses an id past the ids the API keeps, in a body, as digits or a number', async () => {
    for (const assistantId of [pastBigint, Number(pastBigint), '9007199254740992']) {
      const response = await send('POST', '/user/assistants/disable-webhook', `{"assistant_id": ${typeof assistantId === 'string' ? `"${assistantId}"` : pastBigint}}`);
      expect(response.status, String(assistantId)).toBe(422);
      expect(response.body.errors.assistant_id).toEqual(['The assistant id field must not be greater than 9007199254740991.']);
    }
  });

  it('refuses such ids in paths and query strings, and a page past the last one any list has', async () => {
    for (const path of [`/user/assistant/${pastBigint}`, `/user/tools/${pastBigint}`, `/user/knowledgebases/${pastBigint}`, `/user/knowledgebases/1/documents/${pastBigint}`, `/user/api-keys/${pastBigint}`]) {
      const response = await send(path.startsWith('/user/api-keys') ? 'DELETE' : 'GET', path);
      expect(response.status, path).toBe(422);
    }
    const voices = await send('GET', `/user/assistants/voices?language_id=${pastBigint}`);
    expect(voices.status).toBe(422);
    expect(voices.body.errors.language_id).toEqual(['The language id field must not be greater than 9007199254740991.']);
    expect((await send('GET', `/user/assistants/transcriber-providers?language_id=${pastBigint}`)).status).toBe(422);
    const page = await send('GET', `/user/assistants/get?page=${pastBigint}`);
    expect(page.status).toBe(422);
    expect(page.body.errors.page).toEqual(['The page field must not be greater than 100000.']);
    expect((await send('GET', '/user/assistants/get?page=100000')).status).toBe(200);
  });

  it('finds nothing for an assistant id or cursor past bigint in the conversation list, instead of failing', async () => {
    const byId = await send('GET', `/user/conversations?assistant_id=${pastBigint}`);
    expect(byId.status).toBe(200);
    expect(byId.body.data).toEqual([]);
    const cursor = Buffer.from(JSON.stringify({ id: Number(pastBigint), next: true })).toString('base64url');
    expect((await send('GET', `/user/conversations?cursor=${cursor}`)).status).toBe(200);
  });

  it('refuses U+0000 in any text field with a 422 naming the field, however deep', async () => {
    const cases: [string, string, unknown, string][] = [
      ['POST', '/user/api-keys', { name: `key${NUL}` }, 'name'],
      ['POST', '/user/knowledgebases', { name: 'Docs', description: `a${NUL}b` }, 'description'],
      ['POST', '/user/tools', { name: 'check_slot', description: 'Checks', endpoint: 'https://api.example.com/x', method: 'GET', timeout: 5,
        headers: [{ name: 'X-Key', value: `v${NUL}` }], schema: [] }, 'headers.0.value'],
      ['POST', '/user/tools', { name: 'check_slot', description: 'Checks', endpoint: 'https://api.example.com/x', method: 'GET', timeout: 5,
        headers: [], schema: [{ name: 'date', type: 'string', description: `day${NUL}` }] }, 'schema.0.description'],
      ['POST', '/user/assistant', { name: `Ann${NUL}` }, 'name'],
      ['POST', '/user/assistant', { name: 'Ann', variables: { [`k${NUL}`]: 'v' } }, 'variables'],
      ['POST', '/user/assistant', { name: 'Ann', variables: { customer_name: `v${NUL}` } }, 'variables.customer name'],
    ];
    for (const [method, path, body, field] of cases) {
      const response = await send(method, path, body);
      expect(response.status, `${path} ${field}`).toBe(422);
      expect(response.body.errors[field.replace(/ /g, '_')] ?? response.body.errors[field], `${path} ${field}: ${response.text}`).toContain(nulText(field));
    }
    const register = await platform.request('POST', '/auth/register', { body: { name: `Eve${NUL}`, email: 'eve@example.com', password: 'correct horse battery', timezone: 'UTC' } });
    expect(register.status).toBe(422);
    expect(register.body.errors.name).toEqual([nulText('name')]);
    const query = await send('GET', `/user/conversations?assistant_id=${encodeURIComponent(`a${NUL}`)}`);
    expect(query.status).toBe(422);
    expect(query.body.errors.assistant_id).toEqual([nulText('assistant id')]);
  });

  it('answers U+0000 on the conversation routes in their {status:false, error} shape', async () => {
    const started = await platform.request('POST', '/conversations', { body: { assistant_id: someUuid, type: 'test', variables: { city: `Paris${NUL}` } } });
    expect(started.status).toBe(422);
    expect(started.body).toEqual({ status: false, error: nulText('variables.city') });
    const message = await platform.request('POST', `/conversations/${someUuid}/messages`, { body: { message: `hi${NUL}` } });
    expect(message.status).toBe(422);
    expect(message.body).toEqual({ status: false, error: nulText('message') });
    const path = await platform.request('GET', `/conversations/${encodeURIComponent(`x${NUL}`)}`);
    expect(path.status).toBe(422);
    expect(path.body).toEqual({ status: false, error: nulText('uuid') });
  });

  it('refuses U+0000 in multipart fields and in the uploaded file name', async () => {
    const knowledgebase = await send('POST', '/user/knowledgebases', { name: 'Docs' });
    const boundary = 'fuzzboundary';
    // The file name in RFC 5987 form, as a client may send any byte in it.
    const part = (name: string, value: string, filename?: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename === undefined ? '' : `; filename*=UTF-8''${encodeURIComponent(filename)}`}\r\n\r\n${value}\r\n`;
    const upload = (parts: string) => fetch(`${platform.baseUrl}/api/user/knowledgebases/${knowledgebase.body.data.id}/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.token}`, accept: 'application/json', 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: `${parts}--${boundary}--\r\n`,
    });
    const field = await upload(part('type', 'txt') + part('name', `notes${NUL}`) + part('file', 'hello', 'notes.txt'));
    expect(field.status).toBe(422);
    expect(((await field.json()) as any).errors.name).toEqual([nulText('name')]);
    const fileName = await upload(part('type', 'txt') + part('name', 'notes') + part('file', 'hello', `notes${NUL}.txt`));
    expect(fileName.status).toBe(422);
    expect(((await fileName.json()) as any).errors).toEqual({ file: [nulText('file')] });
  });

  it('answers TRACE and made-up methods 405 in the message shape on a known path, 404 elsewhere', async () => {
    for (const method of ['TRACE', 'PROPFIND']) {
      const response = await rawRequest(platform.baseUrl, method, '/user/tools');
      expect(response.status, method).toBe(405);
      expect(response.body).toEqual({ message: `The ${method} method is not supported for route api/user/tools. Supported methods: GET, POST.` });
      expect(response.headers.allow).toBe('GET, HEAD, POST');
    }
    const unknown = await rawRequest(platform.baseUrl, 'TRACE', '/no/such/route');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: 'Not Found.' });
  });

  it('refuses a JSON body that is null, as it does any body that is not an object, where a left-out one is empty', async () => {
    const folder = await platform.request('POST', '/user/folder', { token: user.token, body: { name: 'Kept' } });
    const path = `/user/folder/${folder.body.data.id}`;
    expect(await platform.request('PUT', path, { token: user.token, body: 'null' })).toMatchObject({ status: 400, body: { message: 'The request body must be a JSON object.' } });
    expect(await platform.request('PUT', path, { token: user.token, body: '[]' })).toMatchObject({ status: 400 });
    expect((await platform.request('PUT', path, { token: user.token })).status).toBe(200);
  });
});
