import { describe, expect, it } from 'vitest';
import { createSecretBox, decodeAppKey, generateAppKey } from '../../src/lib/secrets.ts';
import { checkSignedPath, signPath } from '../../src/lib/signed-links.ts';

const box = () => createSecretBox(decodeAppKey(generateAppKey()) as Buffer);
const queryOf = (link: string) => Object.fromEntries(new URL(link, 'http://x').searchParams);

describe('signed links', () => {
  const now = new Date('2026-11-23T10:00:00.400Z');
  const expiresAt = new Date('2026-11-23T11:00:00.900Z');

  it('hold for their path until the expiry second, then expire', () => {
    const secrets = box();
    const link = signPath(secrets, '/api/recordings/7', expiresAt);
    expect(link).toMatch(/^\/api\/recordings\/7\?expires=1795431600&signature=[0-9a-f]{64}$/);
    const query = queryOf(link);
    expect(checkSignedPath(secrets, '/api/recordings/7', query, now)).toBe('valid');
    expect(checkSignedPath(secrets, '/api/recordings/7', query, new Date('2026-11-23T10:59:59.999Z'))).toBe('valid');
    expect(checkSignedPath(secrets, '/api/recordings/7', query, new Date('2026-11-23T11:00:00.000Z'))).toBe('expired');
  });

  it('refuse another path, a changed expiry, another app key, and malformed values', () => {
    const secrets = box();
    const query = queryOf(signPath(secrets, '/api/recordings/7', expiresAt));
    expect(checkSignedPath(secrets, '/api/recordings/8', query, now)).toBe('invalid');
    expect(checkSignedPath(secrets, '/api/recordings/7', { ...query, expires: String(Number(query.expires) + 1) }, now)).toBe('invalid');
    expect(checkSignedPath(box(), '/api/recordings/7', query, now)).toBe('invalid');
    for (const bad of [{}, { expires: query.expires }, { ...query, expires: '1e12' }, { ...query, signature: query.signature?.toUpperCase() }, { ...query, signature: ['a'] }]) {
      expect(checkSignedPath(secrets, '/api/recordings/7', bad, now)).toBe('invalid');
    }
  });

  it('sign with a key of their own purpose: the same message signed for another purpose differs', () => {
    const secrets = box();
    expect(secrets.sign('m', 'signed-link')).not.toBe(secrets.sign('m', 'other'));
    expect(secrets.sign('m', 'signed-link')).toBe(secrets.sign('m', 'signed-link'));
  });
});
