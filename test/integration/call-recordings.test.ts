import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertCall, insertCalls } from '../support/calls.ts';
import { testClock, type TestClock } from '../support/clock.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser } from '../support/users.ts';

// A RIFF/WAVE header and a few samples: what the route streams is compared byte for byte.
const WAV = Buffer.concat([Buffer.from('RIFF\x2c\x00\x00\x00WAVEfmt ', 'latin1'), Buffer.alloc(36, 7)]);

describe('call recordings', () => {
  let platform: TestPlatform;
  let clock: TestClock;
  beforeAll(async () => {
    clock = testClock(new Date('2026-11-23T10:00:00Z'));
    platform = await startTestPlatform({ clock: clock.now });
  });
  afterAll(() => platform.close());

  const knex = () => platform.database.knex;
  const get = (user: { token: string }, path: string) => platform.request('GET', path, { token: user.token });
  /** Fetches a link the API made (on PUBLIC_URL) from the test's server. */
  const fetchLink = (url: string) => fetch(`${platform.baseUrl}${new URL(url).pathname}${new URL(url).search}`);

  it('streams the recording as audio/wav through its signed link until the link expires, and refuses a wrong signature', async () => {
    const user = await createTestUser(knex());
    const key = `calls/link-test-${user.id}/recording.wav`;
    await platform.providers.storage.write(key, WAV);
    const id = await insertCall(knex(), user.id, { recording_key: key });
    const link = (await get(user, `/user/calls/${id}`)).body.recording_url as string;

    const served = await fetchLink(link);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('audio/wav');
    expect(served.headers.get('content-length')).toBe(String(WAV.length));
    expect(Buffer.from(await served.arrayBuffer())).toEqual(WAV);

    const url = new URL(link);
    const expires = Number(url.searchParams.get('expires'));
    expect(expires * 1000).toBe(clock.now().getTime() + 24 * 60 * 60 * 1000);
    const signature = url.searchParams.get('signature') as string;
    const forged = [
      link.replace(signature, `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`),
      link.replace(`expires=${expires}`, `expires=${expires + 3600}`),
      link.replace(`/recordings/${id}?`, `/recordings/${id + 1}?`),
      link.split('?')[0] as string,
    ];
    for (const attempt of forged) {
      const refused = await fetchLink(attempt);
      expect(refused.status, attempt).toBe(403);
      expect(await refused.json()).toEqual({ message: 'Invalid signature.' });
    }

    clock.advance(24 * 60 * 60 * 1000 - 1000);
    expect((await fetchLink(link)).status).toBe(200);
    clock.advance(1000);
    const expired = await fetchLink(link);
    expect(expired.status).toBe(403);
    expect(await expired.json()).toEqual({ message: 'Invalid signature.' });
  });

  it('answers 404 once the file or the call is gone', async () => {
    const user = await createTestUser(knex());
    const key = `calls/gone-test-${user.id}/recording.wav`;
    await platform.providers.storage.write(key, WAV);
    const [missingFile, deletedCall] = await insertCalls(knex(), user.id, [{ recording_key: `${key}.missing` }, { recording_key: key }]);
    const linkOf = async (id: number) => (await get(user, `/user/calls/${id}`)).body.recording_url as string;
    const [first, second] = [await linkOf(missingFile as number), await linkOf(deletedCall as number)];

    await platform.request('DELETE', `/user/calls/${deletedCall}`, { token: user.token });
    for (const link of [first, second]) {
      const response = await fetchLink(link);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ message: 'Recording not found' });
    }
  });
});
