import type { Knex } from 'knex';
import type { Config } from '../../config.ts';
import type { SecretBox } from '../../lib/secrets.ts';
import { createSandboxTelephony } from './sandbox.ts';
import { createTwilioTelephony } from './twilio.ts';
import type { TelephonyProvider } from './types.ts';

export type { TelephonyProvider };

/**
 * The carrier of TELEPHONY_PROVIDER. The sandbox keeps its state in Parley's database, which the process opens
 * after building its providers: `knex` is asked for it on first use, as `secrets` (its callback key).
 */
export function createTelephony(config: Pick<Config, 'telephony' | 'publicUrl'>, knex: () => Knex, secrets: () => SecretBox): TelephonyProvider {
  if (config.telephony.provider === 'twilio') return createTwilioTelephony({ settings: config.telephony, publicUrl: config.publicUrl });
  return createSandboxTelephony({ knex, secrets, publicUrl: () => config.publicUrl });
}
