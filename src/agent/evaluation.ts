import { LanguageModelError, type FunctionDefinition, type LanguageModel, type ToolCall } from '../providers/llm/types.ts';

/** One field of an assistant's `post_call_schema`. */
export interface EvaluationField {
  name: string;
  type: 'string' | 'number' | 'bool';
  description: string;
}

/** What an assistant with an empty `post_call_schema` is evaluated on. */
export const DEFAULT_EVALUATION_SCHEMA: readonly EvaluationField[] = [
  { name: 'status', type: 'bool', description: 'Whether the assistant achieved the objective of the call.' },
  { name: 'summary', type: 'string', description: 'A summary of the call in two or three sentences.' },
];

export type Evaluation = Record<string, string | number | boolean | null>;

const functionName = 'record_call_evaluation';

const jsonTypes = { string: 'string', number: 'number', bool: 'boolean' } as const;

/** The function the model fills: one parameter per field, each required, nothing else. */
export function evaluationFunction(schema: readonly EvaluationField[]): FunctionDefinition {
  return {
    name: functionName,
    description: 'Records the evaluation of the finished call.',
    parameters: {
      type: 'object',
      properties: Object.fromEntries(schema.map((field) => [field.name, { type: jsonTypes[field.type], description: field.description }])),
      required: schema.map((field) => field.name),
      additionalProperties: false,
    },
  };
}

/**
 * The evaluation from the model's function arguments, keyed by the schema's names: a value of the field's
 * type, or null where the model left it out or wrote another type. Throws when the arguments are no object.
 */
export function readEvaluation(schema: readonly EvaluationField[], call: ToolCall): Evaluation {
  let parsed: unknown;
  try {
    parsed = JSON.parse(call.arguments);
  } catch {
    throw new LanguageModelError('the evaluation arguments are not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new LanguageModelError('the evaluation arguments are not an object');
  const values = parsed as Record<string, unknown>;
  return Object.fromEntries(schema.map((field) => {
    const value = values[field.name];
    return [field.name, typeof value === jsonTypes[field.type] ? value as string | number | boolean : null];
  }));
}

/**
 * Asks the model to evaluate a finished call: it reads the assistant's instructions and the transcript and
 * must call the evaluation function, whose parameters are the schema's fields. A model that fails, or answers
 * without the call, throws `LanguageModelError`.
 */
export async function evaluateTranscript(
  model: LanguageModel,
  input: {
    modelName: string;
    instructions: string;
    transcript: string;
    schema: readonly EvaluationField[];
    /** What was had: a `phone call` (the default) or a `chat conversation`. */
    subject?: string;
    /** The language it was held in, by its English name (`German`): the evaluation's text is written in it. */
    language?: string | null;
    signal?: AbortSignal;
  },
): Promise<Evaluation> {
  const schema = input.schema.length > 0 ? input.schema : DEFAULT_EVALUATION_SCHEMA;
  const subject = input.subject ?? 'phone call';
  const system = [
    `You evaluate a finished ${subject} between an AI assistant ("AI") and a customer ("Customer").`,
    `Call ${functionName} once with your evaluation of the ${subject}. Judge only from the transcript.`,
    input.instructions.trim() ? `The assistant's instructions for the ${subject} were:\n${input.instructions.trim()}` : '',
    // The summary is read by the people who held the call: in their language, not the instructions'.
    input.language && input.language !== 'English' ? `The ${subject} was held in ${input.language}: write every text value of the evaluation in ${input.language}.` : '',
  ].filter(Boolean).join('\n\n');
  let call: ToolCall | undefined;
  for await (const event of model.stream({
    model: input.modelName,
    messages: [{ role: 'system', content: system }, { role: 'user', content: `Transcript:\n${input.transcript}` }],
    tools: [evaluationFunction(schema)],
    toolChoice: functionName,
    temperature: 0,
    ...(input.signal ? { signal: input.signal } : {}),
  })) {
    if (event.type === 'tool_calls') call = event.calls.find((candidate) => candidate.name === functionName);
  }
  if (!call) throw new LanguageModelError('the model answered without filling in the evaluation');
  return readEvaluation(schema, call);
}
