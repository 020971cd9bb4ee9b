import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppKeyError, resolveAppKey } from '../../src/lib/app-key.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { createSecretBox, decodeAppKey, generateAppKey, SecretDecryptionError } from '../../src/lib/secrets.ts';
import { createLogger } from '../../src/logger.ts';

const key = () => decodeAppKey(generateAppKey()) as Buffer;
const logger = createLogger({ log: { level: 'silent', pretty: false } });

describe('createSecretBox', () => {
  it('round-trips text, including empty and non-ASCII text, through a versioned ciphertext', () => {
    const box = createSecretBox(key());
    for (const plain of ['Bearer sk-123', '', 'Grüße 🚀']) {
      const stored = box.encrypt(plain, 'tool.header');
      expect(stored).toMatch(/^v1:[A-Za-z0-9+/]+=*$/);
      if (plain !== '') expect(stored).not.toContain(plain);
      expect(box.decrypt(stored, 'tool.header')).toBe(plain);
    }
  });

  it('encrypts the same text differently each time', () => {
    const box = createSecretBox(key());
    expect(box.encrypt('same', 'p')).not.toBe(box.encrypt('same', 'p'));
  });

  it('refuses another key, another purpose, a tampered value and an unknown version', () => {
    const box = createSecretBox(key());
    const stored = box.encrypt('secret', 'tool.header');
    expect(() => createSecretBox(key()).decrypt(stored, 'tool.header')).toThrow(SecretDecryptionError);
    expect(() => box.decrypt(stored, 'assistant.tools')).toThrow(SecretDecryptionError);
    const raw = Buffer.from(stored.slice(3), 'base64');
    raw[raw.length - 1] = (raw[raw.length - 1] ?? 0) ^ 1;
    expect(() => box.decrypt(`v1:${raw.toString('base64')}`, 'tool.header')).toThrow(SecretDecryptionError);
    expect(() => box.decrypt(`v2:${stored.slice(3)}`, 'tool.header')).toThrow('unknown format');
    expect(() => box.decrypt('v1:AAAA', 'tool.header')).toThrow('truncated');
  });

  it('takes only a 32-byte key', () => {
    expect(() => createSecretBox(Buffer.alloc(16))).toThrow('32 bytes');
  });
});

describe('decodeAppKey', () => {
  it('accepts 32 bytes of base64, with or without a base64: prefix, and nothing else', () => {
    const text = generateAppKey();
    expect(decodeAppKey(text)?.length).toBe(32);
    expect(decodeAppKey(`base64:${text}`)?.length).toBe(32);
    expect(decodeAppKey(Buffer.alloc(31).toString('base64'))).toBeUndefined();
    expect(decodeAppKey(Buffer.alloc(33).toString('base64'))).toBeUndefined();
    expect(decodeAppKey('not base64 at all!')).toBeUndefined();
  });
});

describe('APP_KEY in the configuration', () => {
  it('is optional, and refused with its name when it is not a 32-byte key', () => {
    expect(loadConfig({}).appKey).toBeUndefined();
    const text = generateAppKey();
    expect(loadConfig({ APP_KEY: text }).appKey).toBe(text);
    expect(() => loadConfig({ APP_KEY: 'short' })).toThrow(ConfigError);
    expect(() => loadConfig({ APP_KEY: 'short' })).toThrow(/^APP_KEY must be 32 random bytes in base64/);
  });
});

describe('resolveAppKey', () => {
  const dataDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'parley-key-'));

  it('uses APP_KEY when it is set', () => {
    const text = generateAppKey();
    const config = { appKey: text, dataDir: dataDir(), database: { url: 'postgres://db/parley', poolMax: 1 } };
    expect(resolveAppKey(config, logger).equals(decodeAppKey(text) as Buffer)).toBe(true);
  });

  it('generates DATA_DIR/app.key once, readable by the owner only, and reuses it', () => {
    const dir = path.join(dataDir(), 'nested');
    const config = { appKey: undefined, dataDir: dir, database: { url: undefined, poolMax: 1 } };
    const first = resolveAppKey(config, logger);
    const file = path.join(dir, 'app.key');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(resolveAppKey(config, logger).equals(first)).toBe(true);
  });

  it('refuses a damaged key file rather than making a new key', () => {
    const dir = dataDir();
    fs.writeFileSync(path.join(dir, 'app.key'), 'garbage');
    expect(() => resolveAppKey({ appKey: undefined, dataDir: dir, database: { url: undefined } }, logger)).toThrow(AppKeyError);
  });

  it('refuses to start a cluster (DATABASE_URL) without APP_KEY, saying why', () => {
    const config = { appKey: undefined, dataDir: dataDir(), database: { url: 'postgres://db/parley', poolMax: 1 } };
    expect(() => resolveAppKey(config, logger)).toThrow(/APP_KEY is not set\. With DATABASE_URL every process .* must share one app key/);
    expect(fs.existsSync(path.join(config.dataDir, 'app.key'))).toBe(false);
  });
});
