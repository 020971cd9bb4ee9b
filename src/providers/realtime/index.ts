import type { Config } from '../../config.ts';
import { OpenAiRealtimeModel } from './openai-realtime.ts';
import type { RealtimeModel } from './types.ts';

export type { RealtimeConnection, RealtimeEvent, RealtimeModel, RealtimeSessionOptions } from './types.ts';
export { RealtimeProviderError } from './types.ts';

/** The configured speech-to-speech model for `engine_type: multimodal`, or `undefined` when none is configured. */
export function createRealtimeModel(config: Pick<Config, 'realtime'>): RealtimeModel | undefined {
  if (!config.realtime) return undefined;
  return new OpenAiRealtimeModel({ url: config.realtime.url, apiKey: config.realtime.apiKey });
}
