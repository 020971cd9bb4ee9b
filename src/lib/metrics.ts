import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type Metric } from 'prom-client';

/**
 * The process's Prometheus metrics. Each metric is defined once here, in no registry: a role puts the groups it
 * feeds into the registry its process serves on METRICS_PORT (roles call `registerMetrics`), so an api process
 * shows no call metrics and `all` shows every group in one registry. Updating a metric of a group that is not
 * registered is harmless; it is simply never scraped.
 */

/** Seconds; from a fast API answer to a slow webhook receiver. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Seconds; the parts of a spoken turn, where a caller notices anything past about a second. */
const TURN_BUCKETS = [0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10];
/** Seconds from a webhook event to its delivery, retries included. */
const LAG_BUCKETS = [0.1, 0.5, 1, 5, 15, 60, 300, 1800, 3600, 21600, 86400];

export const httpRequests = new Counter({
  name: 'parley_http_requests_total',
  help: 'HTTP requests answered by the API, by method, route pattern and status.',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [],
});

export const httpRequestDuration = new Histogram({
  name: 'parley_http_request_duration_seconds',
  help: 'Time to answer an HTTP request of the API, by method, route pattern and status.',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: HTTP_BUCKETS,
  registers: [],
});

export const callsInProgress = new Gauge({
  name: 'parley_calls_in_progress',
  help: 'Calls this media gateway is running now, by where their audio comes from (browser or carrier).',
  labelNames: ['source'] as const,
  registers: [],
});

export const callsRefused = new Counter({
  name: 'parley_calls_refused_total',
  help: 'Calls this media gateway refused because all its lines (MEDIA_MAX_CALLS) were busy.',
  registers: [],
});

export const unauthenticatedSockets = new Gauge({
  name: 'parley_media_unauthenticated_sockets',
  help: 'Media sockets open on this gateway that have not yet sent their start with a credential (they hold no line).',
  registers: [],
});

export const unauthenticatedSocketsClosed = new Counter({
  name: 'parley_media_unauthenticated_closed_total',
  help: 'Media sockets closed before they proved whose call they carry, by reason: timeout (no start in time), displaced (a newer socket of the same address, or of a full room, took its place), refused (a credential that does not verify).',
  labelNames: ['reason'] as const,
  registers: [],
});

export const lostMediaSessions = new Counter({
  name: 'parley_media_sessions_lost_total',
  help: "Live calls whose media session stopped reporting (its process died, or restarted without it), ended from outside and billed to the session's last report.",
  registers: [],
});

export const turnLatency = new Histogram({
  name: 'parley_turn_latency_seconds',
  help: "Per-turn latency of the assistant's replies, by component: end_of_speech_to_first_audio (what the caller feels), end_of_turn_decision, stt_final_delay, llm_first_token, tts_first_byte.",
  labelNames: ['component'] as const,
  buckets: TURN_BUCKETS,
  registers: [],
});

export const turnModelScores = new Histogram({
  name: 'parley_turn_model_score',
  help: "The turn model's score of the caller's voice at the pause that ended each answered turn: 1 sounds finished.",
  buckets: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1],
  registers: [],
});

export const preemptiveReplies = new Counter({
  name: 'parley_preemptive_replies_total',
  help: 'Replies drafted while the caller paused, by outcome: used (the turn was committed with those words) or discarded (the caller went on, or the words changed).',
  labelNames: ['outcome'] as const,
  registers: [],
});

export const providerErrors = new Counter({
  name: 'parley_provider_errors_total',
  help: 'Failures of the external services a call or job depends on, by kind: stt, tts, llm, realtime, carrier.',
  labelNames: ['provider'] as const,
  registers: [],
});

export const webhookDeliveries = new Counter({
  name: 'parley_webhook_delivery_attempts_total',
  help: 'Webhook delivery attempts, by outcome: delivered, retry, failed (refused for good), dead (last attempt failed), cancelled.',
  labelNames: ['outcome'] as const,
  registers: [],
});

export const webhookLag = new Histogram({
  name: 'parley_webhook_delivery_lag_seconds',
  help: 'From a webhook event to its successful delivery, retries included.',
  buckets: LAG_BUCKETS,
  registers: [],
});

export const webhookWakeups = new Counter({
  name: 'parley_webhook_wakeups_total',
  help: "Waiting webhook deliveries told to try now because another to the same URL was delivered, by outcome: signalled, closed (the delivery's workflow had ended), failed (Temporal did not take the signal).",
  labelNames: ['outcome'] as const,
  registers: [],
});

export const campaignCallsPlaced = new Counter({
  name: 'parley_campaign_calls_total',
  help: 'Campaign leads tried for a call, by outcome: placed, no-slot (no free line in the account or the media gateways), skipped (settled meanwhile), halt (the campaign cannot dial).',
  labelNames: ['outcome'] as const,
  registers: [],
});

export type ProviderKind = 'stt' | 'tts' | 'llm' | 'realtime' | 'carrier';
export type TurnComponent = 'end_of_speech_to_first_audio' | 'end_of_turn_decision' | 'stt_final_delay' | 'llm_first_token' | 'tts_first_byte';

export const earlyModelRequests = new Counter({
  name: 'parley_chat_early_model_requests_total',
  help: "Chat turns whose model request was sent while their message was being stored, by outcome: taken (the turn asked the same) or abandoned (it asked otherwise, or was refused).",
  labelNames: ['outcome'] as const,
  registers: [],
});

/** The groups each role feeds; roles/metrics.ts adds those read at scrape time. */
export const sipCallStatuses = new Counter({
  name: 'parley_sip_call_statuses_total',
  help: 'Statuses the SIP gateway reported for trunk calls (ringing, in-progress, completed, busy, no-answer, failed, canceled).',
  labelNames: ['status'] as const,
  registers: [],
});

export const sipGreetingDelay = new Histogram({
  name: 'parley_sip_answer_to_first_audio_seconds',
  help: 'Time from a trunk call\'s answer to the first RTP packet with sound sent to the far end (the greeting).',
  buckets: TURN_BUCKETS,
  registers: [],
});

export const metricGroups = {
  // The api's chats and generated replies ask the language model too.
  api: [httpRequests, httpRequestDuration, providerErrors, earlyModelRequests],
  media: [callsInProgress, callsRefused, unauthenticatedSockets, unauthenticatedSocketsClosed, lostMediaSessions, turnLatency, turnModelScores, preemptiveReplies, providerErrors],
  worker: [providerErrors, webhookDeliveries, webhookLag, webhookWakeups, campaignCallsPlaced, lostMediaSessions],
  sip: [sipCallStatuses, sipGreetingDelay],
} satisfies Record<string, Metric[]>;

/** A fresh registry with the process's own metrics (memory, CPU, event loop lag) under the `parley_` prefix. */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'parley_' });
  return registry;
}

/** Adds metrics to a registry; one already there (shared by two roles of an `all` process) is kept. */
export function registerMetrics(registry: Registry, metrics: readonly Metric[]): void {
  for (const metric of metrics) {
    if (!registry.getSingleMetric(metricName(metric))) registry.registerMetric(metric);
  }
}

function metricName(metric: Metric): string {
  return (metric as unknown as { name: string }).name;
}

/** The turn metrics of the voice engine (voice/hooks.ts TurnMetrics) by the component label they are observed under. */
export const TURN_COMPONENTS = {
  end_of_speech_to_first_audio_ms: 'end_of_speech_to_first_audio',
  end_of_turn_decision_ms: 'end_of_turn_decision',
  stt_final_delay_ms: 'stt_final_delay',
  llm_first_token_ms: 'llm_first_token',
  tts_first_byte_ms: 'tts_first_byte',
} as const satisfies Record<string, TurnComponent>;

/**
 * The observations of one committed turn: each latency it measured, in seconds, under its component. A turn
 * measures only what it could (none on the caller's turns); a negative value, from clocks that disagree, is
 * left out rather than counted as instant.
 */
export function turnObservations(metrics: Partial<Record<keyof typeof TURN_COMPONENTS, number>>): { component: TurnComponent; seconds: number }[] {
  return (Object.keys(TURN_COMPONENTS) as (keyof typeof TURN_COMPONENTS)[])
    .filter((key) => typeof metrics[key] === 'number' && Number.isFinite(metrics[key]) && metrics[key] >= 0)
    .map((key) => ({ component: TURN_COMPONENTS[key], seconds: (metrics[key] as number) / 1000 }));
}

/** What a committed reply tells beside its latencies: the turn model's score, whether it was drafted and kept, drafts discarded. */
interface TurnOutcome {
  turn_model_score?: number;
  preemptive?: number;
  preemptive_discarded?: number;
}

/** Observes a committed turn's latencies (turnObservations), its turn model score and its drafts. */
export function observeTurn(metrics: Partial<Record<keyof typeof TURN_COMPONENTS, number>> & TurnOutcome): void {
  for (const { component, seconds } of turnObservations(metrics)) turnLatency.observe({ component }, seconds);
  if (typeof metrics.turn_model_score === 'number') turnModelScores.observe(metrics.turn_model_score);
  if (metrics.preemptive) preemptiveReplies.inc({ outcome: 'used' });
  if (metrics.preemptive_discarded) preemptiveReplies.inc({ outcome: 'discarded' }, metrics.preemptive_discarded);
}
