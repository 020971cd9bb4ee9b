import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { decodeAppKey, generateAppKey } from './secrets.ts';

export class AppKeyError extends Error {
  override name = 'AppKeyError';
}

/**
 * The key that encrypts secrets at rest: APP_KEY when set. Otherwise, on a single machine (embedded
 * database), `DATA_DIR/app.key`, generated on first start. A cluster must set APP_KEY: each replica would
 * otherwise make its own key and could not read what the others wrote.
 */
export function resolveAppKey(config: { appKey: string | undefined; dataDir: string; database: { url: string | undefined } }, logger: Pick<Logger, 'info'>): Buffer {
  if (config.appKey) {
    const key = decodeAppKey(config.appKey);
    if (!key) throw new AppKeyError('APP_KEY must be 32 bytes in base64.');
    return key;
  }
  if (config.database.url) {
    throw new AppKeyError(
      'APP_KEY is not set. With DATABASE_URL every process (api, worker, media, every replica) must share one app key, ' +
      'which encrypts secrets such as tool headers: generate one with `openssl rand -base64 32` and set APP_KEY to it everywhere.',
    );
  }
  const file = path.join(config.dataDir, 'app.key');
  fs.mkdirSync(config.dataDir, { recursive: true });
  try {
    // `wx` so that two first starts racing cannot both write a key.
    fs.writeFileSync(file, `${generateAppKey()}\n`, { mode: 0o600, flag: 'wx' });
    logger.info({ file }, 'generated the app key; back it up with the data directory');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const key = decodeAppKey(fs.readFileSync(file, 'utf8'));
  if (!key) throw new AppKeyError(`${file} does not hold a 32-byte base64 app key; restore it from a backup or set APP_KEY.`);
  return key;
}
