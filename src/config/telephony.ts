import { ConfigError } from './error.ts';
import type { Reader } from './reader.ts';

/**
 * The carrier that sells numbers (and, with the next issue, carries calls and messages): the embedded sandbox
 * carrier, state in the database, or Twilio with the account's credentials. The auth token is never logged.
 */
export type TelephonyConfig =
  | {
    provider: 'sandbox';
    /** How quickly the sandbox's scripted callees pick up and hang up: as on a phone network, or at once (benches). */
    pace: SandboxPace;
    /** How long the silent callee holds the line before it hangs up; the pace's own when unset (benches). */
    silentCalleeSeconds: number | undefined;
  }
  | {
    provider: 'twilio';
    accountSid: string;
    authToken: string;
    /** Another server for every Twilio API host (the fake in tests, or a proxy); unset means Twilio's own. */
    apiBase: string | undefined;
  };

export type SandboxPace = 'phone' | 'instant';

export function readTelephony(read: Reader): TelephonyConfig {
  const provider = read.oneOf('TELEPHONY_PROVIDER', ['sandbox', 'twilio'] as const, 'sandbox');
  if (provider === 'sandbox') {
    return {
      provider,
      pace: read.oneOf('SANDBOX_CARRIER_PACE', ['phone', 'instant'] as const, 'phone'),
      silentCalleeSeconds: read.string('SANDBOX_SILENT_CALLEE_SECONDS') === undefined ? undefined : read.integer('SANDBOX_SILENT_CALLEE_SECONDS', 1, 1, 3600),
    };
  }
  const accountSid = read.string('TWILIO_ACCOUNT_SID');
  if (accountSid === undefined || !/^AC[0-9a-f]{32}$/i.test(accountSid)) {
    throw new ConfigError('TWILIO_ACCOUNT_SID', 'is required when TELEPHONY_PROVIDER is twilio: the Account SID, AC followed by 32 hex digits.');
  }
  const authToken = read.string('TWILIO_AUTH_TOKEN');
  if (authToken === undefined) throw new ConfigError('TWILIO_AUTH_TOKEN', 'is required when TELEPHONY_PROVIDER is twilio.');
  const apiBase = read.url('TWILIO_API_BASE', ['http:', 'https:'])?.replace(/\/+$/, '');
  return { provider, accountSid, authToken, apiBase };
}
