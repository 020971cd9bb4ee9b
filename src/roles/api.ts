import http from 'node:http';
import { createApp } from '../api/app.ts';
import { consoleBundle } from '../api/console.ts';
import { docsRoutes } from '../api/docs.ts';
import { healthRoutes } from '../api/health.ts';
import { createRequestGuards, type RequestGuards } from '../api/guards.ts';
import { buildOpenApiDocument } from '../api/openapi.ts';
import type { RouteDefinition } from '../api/routing.ts';
import type { Config } from '../config.ts';
import type { Knex } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import { describeEmbeddings } from '../providers/embeddings/index.ts';
import type { Providers } from '../providers/index.ts';
import { apiKeyRoutes } from '../resources/api-keys/routes.ts';
import { assistantRoutes } from '../resources/assistants/routes.ts';
import { authRoutes } from '../resources/auth/routes.ts';
import { tokenResolver } from '../resources/auth/tokens.ts';
import { whiteLabelRoutes } from '../resources/white-label/routes.ts';
import { balanceRoutes } from '../resources/balance/routes.ts';
import { callRoutes } from '../resources/calls/routes.ts';
import { campaignRoutes } from '../resources/campaigns/routes.ts';
import { tellLeadsAdded } from '../resources/campaigns/status.ts';
import { catalogRoutes } from '../resources/catalogs/routes.ts';
import type { OfferedSpeech } from '../resources/catalogs/service.ts';
import { conversationRoutes } from '../resources/conversations/routes.ts';
import type { QuietConversation } from '../resources/conversations/quiet-timer.ts';
import { dialingCountryRoutes } from '../resources/dialing-countries/routes.ts';
import { documentRoutes } from '../resources/documents/routes.ts';
import { folderRoutes } from '../resources/folders/routes.ts';
import { labelRoutes } from '../resources/labels/routes.ts';
import { leadRoutes } from '../resources/leads/routes.ts';
import { knowledgebaseRoutes } from '../resources/knowledgebases/routes.ts';
import { paymentMethodRoutes } from '../resources/payment-methods/routes.ts';
import { paymentWebhookRoutes } from '../resources/payment-webhooks/routes.ts';
import { carrierCallbackRoutes } from '../resources/carrier-callbacks/routes.ts';
import { makeCallRoutes } from '../resources/calls/make-call-routes.ts';
import { sandboxCarrierToken } from '../providers/telephony/sandbox.ts';
import { ownedNumberRoutes } from '../resources/phone-numbers/owned-routes.ts';
import { retryPastDueRenewals, settleSubscriptionPayment, tellRelease } from '../resources/phone-numbers/purchase.ts';
import { phoneNumberPurchaseRoutes } from '../resources/phone-numbers/purchase-routes.ts';
import { phoneNumberAssignmentRoutes } from '../resources/phone-numbers/routes.ts';
import { sipTrunkRoutes } from '../resources/sip-trunks/routes.ts';
import { smsRoutes } from '../resources/sms/routes.ts';
import { toolRoutes } from '../resources/tools/routes.ts';
import { userRoutes } from '../resources/users/routes.ts';
import { webCallRoutes } from '../resources/web-calls/routes.ts';
import { webhookRoutes } from '../resources/webhooks/routes.ts';
import { whatsappCallbackRoutes } from '../resources/whatsapp/callback-routes.ts';
import { whatsappRoutes } from '../resources/whatsapp/routes.ts';
import { whatsappSettingsRoutes } from '../resources/whatsapp/settings-routes.ts';
import { SandboxCarrier } from '../simulators/sandbox-carrier/carrier.ts';
import { sandboxPages } from '../simulators/sandbox-carrier/http/pages.ts';
import { sandboxCarrierRoutes } from '../simulators/sandbox-carrier/http/routes.ts';
import { heldInParley, softphoneUpgrades } from '../simulators/sandbox-carrier/http/softphone.ts';
import { sandboxWhatsAppPageRoutes } from '../simulators/sandbox-carrier/http/whatsapp-page.ts';
import { READ_RECEIPT_POLICY } from '../webhooks/policy.ts';
import type { TemporalClient } from '../temporal/client.ts';
import { startConversationTimer, startWebhookDelivery } from '../temporal/starters.ts';
import { InFlight } from '../lib/in-flight.ts';
import { createAutoRecharger } from '../billing/auto-recharge.ts';
import type { SubscriptionPaymentHandler } from '../billing/payment-events.ts';
import { closeServer, listen } from './http-server.ts';
import { registerApiMetrics } from './metrics.ts';
import type { RoleContext, RunningRole } from './role.ts';

export interface ApiRouteDeps {
  config: Config;
  logger: Logger;
  knex: Knex;
  temporal: TemporalClient;
  /** The adapters of this process, from createProviders. */
  providers: Providers;
  /** The clock, limiter and token lookup the app's middleware uses too (api/guards.ts). */
  guards: RequestGuards;
  /** Told of each payment event of a phone number subscription; by default its workflow is signalled. */
  onSubscriptionPayment?: SubscriptionPaymentHandler;
  /** The sandbox carrier's calls and chats, served here when it is the carrier (TELEPHONY_PROVIDER=sandbox). */
  sandboxCarrier?: SandboxCarrier;
  /** Holds the Temporal calls the routes make without waiting, which the api role lets finish before the client closes. */
  inFlight?: InFlight;
}

/**
 * Every route of the API, relative to `/api`, in the order they are matched; `/openapi.json` among them
 * serves the document of exactly this list.
 */
export function apiRoutes(deps: ApiRouteDeps): RouteDefinition[] {
  const { knex, config, logger, temporal } = deps;
  const { secrets, storage, embeddings } = deps.providers;
  const { guards } = deps;
  const testChats = { limiter: guards.limiter, limits: config.testChats, resolveToken: guards.resolveToken };
  // Told of each charge to a user's balance, so auto-recharge can check its threshold.
  const afterCharge = createAutoRecharger({ knex, payments: deps.providers.payments, logger });
  // A widget or WhatsApp conversation's inactivity timer, started by a message that finds none running (W2).
  const inFlight = deps.inFlight ?? new InFlight();
  const startQuietTimer = (conversation: QuietConversation) =>
    inFlight.track(startConversationTimer(temporal, conversation, conversation.inactivityTimeoutMinutes * config.conversationInactivityUnitMs));
  const conversations = {
    knex, secrets, safeFetch: deps.providers.fetch, embeddings, model: deps.providers.llm, defaultModel: config.llm.defaultModel, logger, afterCharge, startQuietTimer,
  };
  const whatsapp = { knex, telephony: deps.providers.telephony, logger, publicUrl: config.publicUrl, now: guards.clock, afterCharge, startQuietTimer };
  const receipts = {
    knex, logger, now: guards.clock, deliverReceipt: (delivery: { deliveryId: number; userId: number; assistantId: number }) => startWebhookDelivery(temporal, delivery, READ_RECEIPT_POLICY),
  };
  let document: Record<string, unknown> = {};
  const offered = offeredSpeech(config, deps.providers);
  const routes = [
    ...healthRoutes({ knex, temporal, embeddings: describeEmbeddings(config) }),
    ...docsRoutes(() => document),
    ...authRoutes({ knex, config, now: guards.clock }),
    ...userRoutes({ knex }),
    ...dialingCountryRoutes({ knex }),
    ...apiKeyRoutes({ knex }),
    ...whiteLabelRoutes({ knex, config, now: guards.clock }),
    ...toolRoutes({ knex, secrets }),
    ...catalogRoutes({ knex, offered }),
    ...phoneNumberAssignmentRoutes({ knex }),
    // Before the owned-number routes, whose `/user/phone-numbers/{id}` would otherwise capture `sip-trunks`.
    ...sipTrunkRoutes({ knex, secrets, clock: guards.clock }),
    ...ownedNumberRoutes({ knex, region: config.region, tellRelease: (id) => tellRelease(temporal, logger, id) }),
    ...phoneNumberPurchaseRoutes({ knex, temporal, telephony: deps.providers.telephony, payments: deps.providers.payments, subscriptionPeriod: config.subscriptionPeriod }),
    ...assistantRoutes({ knex, secrets, publicUrl: config.publicUrl, offered }),
    ...folderRoutes({ knex, publicUrl: config.publicUrl }),
    ...labelRoutes({ knex, publicUrl: config.publicUrl }),
    ...webhookRoutes({ knex, secrets, temporal, publicUrl: config.publicUrl, now: guards.clock }),
    ...knowledgebaseRoutes({ knex, temporal, storage, embeddings }),
    ...documentRoutes({ knex, temporal, storage, logger }),
    ...callRoutes({ knex, storage, temporal, secrets, publicUrl: config.publicUrl, now: guards.clock }),
    ...campaignRoutes({ knex, temporal, now: guards.clock }),
    ...leadRoutes({ knex, publicUrl: config.publicUrl, leadsAdded: (campaignId) => tellLeadsAdded({ knex, temporal }, campaignId) }),
    ...makeCallRoutes({ knex, temporal, logger, model: deps.providers.llm }),
    ...conversationRoutes({ ...conversations, publicUrl: config.publicUrl, testChats }),
    ...smsRoutes({ knex, telephony: deps.providers.telephony, logger, publicUrl: config.publicUrl, afterCharge }),
    ...paymentMethodRoutes({ knex, payments: deps.providers.payments, onDefaultChanged: retryPastDueRenewals({ knex, temporal, logger }) }),
    ...balanceRoutes({ knex, payments: deps.providers.payments, publicUrl: config.publicUrl }),
    ...paymentWebhookRoutes({ knex, payments: deps.providers.payments, logger, onSubscriptionPayment: deps.onSubscriptionPayment ?? settleSubscriptionPayment(temporal, logger) }),
    ...carrierCallbackRoutes({
      knex, temporal, logger, secrets, telephony: deps.providers.telephony, publicUrl: config.publicUrl, model: deps.providers.llm, mediaPublicUrl: () => config.media.publicUrl,
      fetch: deps.providers.fetch, whatsapp: { ...whatsapp, conversations },
    }),
    ...whatsappRoutes(whatsapp),
    ...whatsappSettingsRoutes({ ...receipts, secrets }),
    ...whatsappCallbackRoutes({ ...receipts, telephony: deps.providers.telephony, publicUrl: config.publicUrl }),
    ...(deps.sandboxCarrier ? [
      ...sandboxCarrierRoutes({ knex, carrier: deps.sandboxCarrier, token: () => sandboxCarrierToken(secrets) }),
      ...sandboxWhatsAppPageRoutes({ knex, carrier: deps.sandboxCarrier }),
    ] : []),
    ...webCallRoutes({ knex, temporal, logger, model: deps.providers.llm, mediaPublicUrl: config.media.publicUrl, clock: guards.clock }),
  ];
  document = buildOpenApiDocument(routes, { serverUrl: `${config.publicUrl}/api`, version: '0.1.0' });
  return routes;
}

/** The api role: the HTTP API on PORT. Stopping lets requests in flight finish until the deadline. */
export async function start(ctx: RoleContext): Promise<RunningRole> {
  const { config, logger } = ctx;
  const knex = ctx.database.knex;
  registerApiMetrics({ registry: ctx.metrics });
  const guards = createRequestGuards({ knex, config, resolveToken: (clock) => tokenResolver(knex, clock) });
  const sandboxCarrier = createSandboxCarrier(config, ctx.providers, logger, knex);
  const inFlight = new InFlight();
  const routes = apiRoutes({ config, logger, knex, temporal: ctx.temporal, providers: ctx.providers, guards, sandboxCarrier, inFlight });
  const { app } = createApp({ config, logger, routes, guards, pages: sandboxCarrier ? sandboxPages() : undefined });
  // Bundled now rather than on the first visit, so the console's first page is not kept waiting.
  consoleBundle().catch((error: unknown) => logger.error({ err: error }, 'the console could not be bundled'));
  const server = http.createServer(app.callback());
  if (sandboxCarrier) server.on('upgrade', softphoneUpgrades(sandboxCarrier, logger));
  await listen(server, config.port, config.host);
  return {
    async stop(deadline) {
      // The server's close waits for every socket, the softphone pages' too: they are closed first.
      sandboxCarrier?.softphones.close();
      await closeServer(server, deadline);
      await sandboxCarrier?.close();
      // The Temporal client closes after the roles: a call of a request still retrying then would throw.
      await inFlight.settled(deadline);
    },
  };
}

/**
 * The sandbox carrier's simulator, run by the api role when it is the deployment's carrier; its pages (the softphone
 * and the WhatsApp phone: sandboxPages), the softphone's socket (softphoneUpgrades) and the WhatsApp phone's JSON
 * routes are served beside the API then, and only then.
 */
export function createSandboxCarrier(config: Config, providers: Providers, logger: Logger, knex: Knex): SandboxCarrier | undefined {
  if (config.telephony.provider !== 'sandbox') return undefined;
  return new SandboxCarrier({
    logger, token: () => sandboxCarrierToken(providers.secrets), parleyUrl: () => config.publicUrl, owned: (phoneNumber) => heldInParley(knex, phoneNumber),
    pace: config.telephony.pace, silentCalleeSeconds: config.telephony.silentCalleeSeconds,
  });
}

/** The speech this deployment serves, as the catalogs list it: STT_PROVIDER's recognizer, the synthesizers built, the realtime model. */
function offeredSpeech(config: Config, providers: Providers): OfferedSpeech {
  return {
    synthesizers: providers.tts.codes,
    transcribers: [config.stt.provider === 'local' ? 'whisper' : config.stt.provider],
    realtime: providers.realtime !== undefined,
    heard: providers.stt.kind === 'segment' ? providers.stt.hears : undefined,
    offlineRecognizer: config.stt.provider === 'local',
  };
}
