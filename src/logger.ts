import pino, { type Logger } from 'pino';
import type { Config } from './config.ts';

export type { Logger };

/** JSON lines for machines; pretty, coloured lines when a person watches a terminal. */
export function createLogger(config: Pick<Config, 'log'>): Logger {
  return pino({
    level: config.log.level,
    base: undefined,
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', '*.password', '*.token', 'password', 'token', '*.secretKey', '*.webhookSecret', '*.authToken'],
      censor: '[redacted]',
    },
    ...(config.log.pretty
      ? { transport: { target: 'pino-pretty', options: { colorize: true, ignore: 'pid,hostname', translateTime: 'SYS:HH:MM:ss.l' } } }
      : {}),
  });
}
