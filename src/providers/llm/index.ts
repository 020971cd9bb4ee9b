import type { Config } from '../../config.ts';
import { OpenAiCompatibleModel } from './openai-compatible.ts';
import type { LanguageModel } from './types.ts';

export type { LanguageModel } from './types.ts';

/** The configured language model, or `undefined` when none is configured. */
export function createLanguageModel(config: Pick<Config, 'llm'>): LanguageModel | undefined {
  if (!config.llm.baseUrl) return undefined;
  return new OpenAiCompatibleModel({ baseUrl: config.llm.baseUrl, apiKey: config.llm.apiKey, timeoutMs: config.llm.timeoutMs });
}
