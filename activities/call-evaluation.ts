import type { Knex } from 'knex';
import { evaluateTranscript, type EvaluationField } from '../src/agent/evaluation.ts';
import type { Config } from '../src/config.ts';
import type { Logger } from '../src/logger.ts';
import type { Providers } from '../src/providers/index.ts';
import { LanguageModelError } from '../src/providers/llm/types.ts';

export interface EvaluationDependencies {
  knex: Knex;
  logger: Logger;
  config: Pick<Config, 'llm'>;
  providers: Pick<Providers, 'llm'>;
}

/** What an evaluation reads: the transcript, and the assistant's instructions, schema and model. */
interface EvaluatedRow {
  transcript: string;
  systemPrompt: string | null;
  postCallSchema: EvaluationField[] | null;
  modelName: string | null;
  /** The assistant's language by name (`German`); null without one. */
  language?: string | null;
}

/** A record the post-call evaluation fills: a call, or a conversation that went quiet. */
export interface EvaluatedRecord {
  table: 'calls' | 'conversations';
  id: number;
  /** What the evaluation reads (undefined: the record is gone). */
  read: () => Promise<EvaluatedRow | undefined>;
  /** What the model is told it evaluates. */
  subject: 'phone call' | 'chat conversation';
}

/** The assistant's side of an evaluation, joined from the record's `assistant_id` (`a`) to its model (`m`) and language (`l`). */
export function evaluationColumns(knex: Knex, table: 'calls' | 'conversations', id: number) {
  return knex(`${table} as r`)
    .leftJoin('assistants as a', 'a.id', 'r.assistant_id')
    .leftJoin('language_models as m', 'm.id', 'a.llm_model_id')
    .leftJoin('languages as l', 'l.id', 'a.language_id')
    .where('r.id', id);
}

/**
 * Fills the record's `evaluation` with what the language model makes of its transcript, on the assistant's
 * `post_call_schema`, with the assistant's model. No model configured, or a model that fails or answers
 * without the evaluation: the evaluation stays null and the reason is logged, the record is no worse for it.
 */
export async function evaluateRecord(deps: EvaluationDependencies, record: EvaluatedRecord, signal: AbortSignal | undefined): Promise<{ evaluated: boolean }> {
  const { knex, logger } = deps;
  const model = deps.providers.llm;
  const context = { table: record.table, id: record.id };
  if (!model) {
    logger.info(context, 'no language model is configured: not evaluated');
    return { evaluated: false };
  }
  const row = await record.read();
  if (!row || row.postCallSchema === null) return { evaluated: false };
  try {
    const evaluation = await evaluateTranscript(model, {
      modelName: row.modelName ?? deps.config.llm.defaultModel,
      instructions: row.systemPrompt ?? '',
      transcript: row.transcript,
      schema: row.postCallSchema,
      subject: record.subject,
      language: row.language ?? null,
      ...(signal ? { signal } : {}),
    });
    await knex(record.table).where({ id: record.id }).update({ evaluation: JSON.stringify(evaluation), updatedAt: knex.fn.now() });
    return { evaluated: true };
  } catch (error) {
    if (!(error instanceof LanguageModelError)) throw error;
    logger.warn({ ...context, err: error }, 'the post-call evaluation failed: the record keeps no evaluation');
    return { evaluated: false };
  }
}

/** Evaluates a call from its stored transcript. */
export function evaluateCallRecord(deps: EvaluationDependencies, callId: number, signal: AbortSignal | undefined): Promise<{ evaluated: boolean }> {
  return evaluateRecord(deps, {
    table: 'calls',
    id: callId,
    subject: 'phone call',
    read: () => evaluationColumns(deps.knex, 'calls', callId)
      .first<EvaluatedRow | undefined>('r.transcript', 'a.system_prompt', 'a.post_call_schema', 'm.provider_model as model_name', 'l.name as language'),
  }, signal);
}
