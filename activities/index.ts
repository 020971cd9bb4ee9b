import type { Knex } from 'knex';
import type { Config } from '../src/config.ts';
import type { Logger } from '../src/logger.ts';
import type { Providers } from '../src/providers/index.ts';
import type { TemporalClient } from '../src/temporal/client.ts';
import { createAutoRecharger } from '../src/billing/auto-recharge.ts';
import { createCallActivities } from './calls.ts';
import { createCampaignActivities } from './campaigns.ts';
import { createConversationActivities } from './conversations.ts';
import { createDocumentActivities } from './documents.ts';
import { createPhoneCallActivities } from './phone-calls.ts';
import { createPhoneNumberActivities } from './phone-numbers.ts';
import { withDomainFailures } from './failures.ts';
import { createSelfCheckActivities } from './self-check.ts';
import { createWebhookActivities } from './webhooks.ts';

export interface ActivityDependencies {
  knex: Knex;
  logger: Logger;
  config: Pick<Config, 'fetch' | 'ingestion' | 'llm' | 'subscriptionPeriod' | 'publicUrl' | 'media' | 'campaignRetryUnitMs' | 'campaignInboundReservePercent' | 'conversationInactivityUnitMs'>;
  providers: Pick<Providers, 'storage' | 'fetch' | 'embeddings' | 'llm' | 'mediaControl' | 'payments' | 'telephony' | 'secrets' | 'sipTrunks'>;
  /** The process's Temporal client, for activities that signal other workflows (a delivered webhook wakes its receiver's others). */
  temporal: Pick<TemporalClient, 'client'>;
}

/**
 * Every activity, built over its dependencies so tests can hand in their own database and fakes. Domain
 * errors they throw reach workflows as failures typed by their code (failures.ts).
 */
export function createActivities(deps: ActivityDependencies) {
  return withDomainFailures({
    ...createSelfCheckActivities(deps),
    ...createDocumentActivities(deps),
    ...createCallActivities({ ...deps, afterCharge: createAutoRecharger({ knex: deps.knex, payments: deps.providers.payments, logger: deps.logger }) }),
    ...createPhoneCallActivities(deps),
    ...createPhoneNumberActivities({ ...deps, subscriptionPeriod: deps.config.subscriptionPeriod }),
    ...createCampaignActivities(deps),
    ...createWebhookActivities(deps),
    ...createConversationActivities({ ...deps, inactivityUnitMs: deps.config.conversationInactivityUnitMs }),
  });
}

export type Activities = ReturnType<typeof createActivities>;
