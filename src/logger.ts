import pino, { type DestinationStream, type Logger } from 'pino';
import type { Config } from './config.ts';
import { currentLogContext } from './lib/log-context.ts';

export type { Logger };

/**
 * What an error is logged with: what explains it, never everything it carries. HTTP clients attach the request
 * they made to their errors (axios, under the `twilio` package, keeps its headers, Twilio's Basic credentials
 * among them), so an error's own fields are kept only when they are on this list.
 */
const ERROR_FIELDS = new Set([
  'type', 'message', 'stack', 'aggregateErrors', 'code', 'errno', 'syscall', 'address', 'port', 'status', 'statusCode',
  'errors', 'details', 'moreInfo', 'requestId', 'decline_code',
]);

function keptFields(serialized: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(serialized)) {
    if (value === undefined || !ERROR_FIELDS.has(key)) continue;
    kept[key] = key === 'aggregateErrors' ? (value as Record<string, unknown>[]).map(keptFields) : value;
  }
  return kept;
}

function loggedError(value: unknown): unknown {
  return value instanceof Error ? keptFields(pino.stdSerializers.err(value)) : value;
}

/**
 * JSON lines for machines; pretty, coloured lines when a person watches a terminal. `destination` (JSON only)
 * takes the lines instead of stdout.
 */
export function createLogger(config: Pick<Config, 'log'>, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level: config.log.level,
    base: undefined,
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', '*.password', '*.token', 'password', 'token', '*.secretKey', '*.webhookSecret', '*.authToken'],
      censor: '[redacted]',
    },
    // The ids of the work running (an activity's workflow and run: lib/log-context.ts), on every line. A copy:
    // pino merges the line's own fields into what the mixin returns.
    mixin: () => ({ ...currentLogContext() }),
    // `error`: Temporal's worker logs an activity's failure under that name.
    serializers: { err: loggedError, error: loggedError },
  };
  if (config.log.pretty) {
    return pino({ ...options, transport: { target: 'pino-pretty', options: { colorize: true, ignore: 'pid,hostname', translateTime: 'SYS:HH:MM:ss.l' } } });
  }
  return destination ? pino(options, destination) : pino(options);
}
