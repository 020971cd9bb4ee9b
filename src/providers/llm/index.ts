import type { Config } from '../../config.ts';
import { providerErrors } from '../../lib/metrics.ts';
import { OpenAiCompatibleModel } from './openai-compatible.ts';
import { LanguageModelError, type ChatRequest, type LanguageModel } from './types.ts';

export type { LanguageModel } from './types.ts';

/** The configured language model, or `undefined` when none is configured. */
export function createLanguageModel(config: Pick<Config, 'llm'>): LanguageModel | undefined {
  if (!config.llm.baseUrl) return undefined;
  return countingFailures(new OpenAiCompatibleModel({ baseUrl: config.llm.baseUrl, apiKey: config.llm.apiKey, timeoutMs: config.llm.timeoutMs }));
}

/**
 * The model with each of its failures counted (parley_provider_errors_total{provider="llm"}), whichever part
 * of Parley asked: a call, a chat, a post-call evaluation. A request its caller cancelled is not a failure.
 */
function countingFailures(model: LanguageModel): LanguageModel {
  return {
    async *stream(request: ChatRequest) {
      try {
        yield* model.stream(request);
      } catch (error) {
        if (error instanceof LanguageModelError) providerErrors.inc({ provider: 'llm' });
        throw error;
      }
    },
  };
}
