import { evaluateTranscript, type EvaluationField } from '../src/agent/evaluation.ts';
import { LanguageModelError } from '../src/providers/llm/types.ts';
import type { CallActivityDependencies } from './calls.ts';

interface EvaluatedRow {
  transcript: string;
  systemPrompt: string | null;
  postCallSchema: EvaluationField[] | null;
  modelName: string | null;
}

/**
 * Fills the call's `evaluation` with what the language model makes of its transcript, on the assistant's
 * `post_call_schema`, with the assistant's model. No model configured, or a model that fails or answers
 * without the evaluation: the evaluation stays null and the reason is logged, the call is no worse for it.
 */
export async function evaluateCallRecord(deps: CallActivityDependencies, callId: number, signal: AbortSignal | undefined): Promise<{ evaluated: boolean }> {
  const { knex, logger } = deps;
  const model = deps.providers.llm;
  if (!model) {
    logger.info({ callId }, 'no language model is configured: the call is not evaluated');
    return { evaluated: false };
  }
  const row = await knex('calls as c')
    .leftJoin('assistants as a', 'a.id', 'c.assistant_id')
    .leftJoin('language_models as m', 'm.id', 'a.llm_model_id')
    .where('c.id', callId)
    .first<EvaluatedRow | undefined>('c.transcript', 'a.system_prompt', 'a.post_call_schema', 'm.provider_model as model_name');
  if (!row || row.postCallSchema === null) return { evaluated: false };
  try {
    const evaluation = await evaluateTranscript(model, {
      modelName: row.modelName ?? deps.config.llm.defaultModel,
      instructions: row.systemPrompt ?? '',
      transcript: row.transcript,
      schema: row.postCallSchema,
      ...(signal ? { signal } : {}),
    });
    await knex('calls').where({ id: callId }).update({ evaluation: JSON.stringify(evaluation), updatedAt: knex.fn.now() });
    return { evaluated: true };
  } catch (error) {
    if (!(error instanceof LanguageModelError)) throw error;
    logger.warn({ callId, err: error }, 'the post-call evaluation failed: the call keeps no evaluation');
    return { evaluated: false };
  }
}
