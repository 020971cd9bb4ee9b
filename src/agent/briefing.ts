/**
 * The briefing of a warm transfer (`warm_call_transfer`): what the supervisor hears on answering, the
 * assistant's opening words for them and a short summary of the conversation written by its language model,
 * in the call's language.
 */
import { untilAborted } from '../lib/abort.ts';
import { iso2Of, languageName, languagePack } from '../lib/languages/index.ts';
import type { ChatMessage, LanguageModel } from '../providers/llm/types.ts';
import type { HistoryEntry } from './turn-input.ts';

/** A summary not written by then is given up for the last turns: the caller is on hold meanwhile. */
export const SUMMARY_TIMEOUT_MS = 10_000;

/** How many of the last messages stand in for a summary the model could not write. */
export const FALLBACK_TURNS = 4;

/** The conversation as a transcript the summarising model reads. */
export function transcriptOf(history: readonly HistoryEntry[]): string {
  return history.map((entry) => `${entry.role === 'user' ? 'Caller' : 'Assistant'}: ${entry.content.trim()}`).join('\n');
}

/**
 * " in German": the language the summary is written in, said to the model; nothing for English, or for a code
 * with no name (the model then writes as the instructions and the conversation suggest).
 */
function inLanguage(language: string | undefined): string {
  const name = language && iso2Of(language) !== 'en' ? languageName(language) : undefined;
  return name ? ` in ${name}` : '';
}

/**
 * The request for the summary: the instructions, then the conversation as one message to summarise. The
 * supervisor hears it in the call's language (BCP 47 or ISO 639-1), as the caller heard the assistant.
 */
export function summaryMessages(history: readonly HistoryEntry[], instructions: string, language?: string): ChatMessage[] {
  return [
    {
      role: 'system',
      content: `${instructions.trim()}\nWrite two or three short spoken sentences${inLanguage(language)}, to be read aloud on the phone: no lists, no markdown, no greeting.`,
    },
    { role: 'user', content: `The conversation so far:\n${transcriptOf(history) || '(nothing has been said yet)'}` },
  ];
}

/**
 * What stands in for the summary when the model fails: the last turns of the conversation, as heard, introduced
 * in the call's language (English for a language without a pack, as the engine's other lines).
 */
export function lastTurnsSummary(history: readonly HistoryEntry[], language?: string): string {
  const words = languagePack(language).lastTurns;
  const last = history.slice(-FALLBACK_TURNS);
  if (last.length === 0) return words.nothingSaid;
  return `${words.lead} ${last.map((entry) => `${entry.role === 'user' ? words.callerSaid : words.assistantSaid}: "${entry.content.trim()}"`).join('; ')}.`;
}

/** The briefing as said to the supervisor: the opening words, then the summary. */
export function briefingText(initialMessage: string, summary: string): string {
  return [initialMessage.trim(), summary.trim()].filter(Boolean).join(' ');
}

export interface Summary {
  text: string;
  /** `model`: written by the language model; `last_turns`: it failed, so the last turns stand in. */
  source: 'model' | 'last_turns';
  /** Why the model's summary is missing, when it is. */
  error?: string;
}

/**
 * Asks the assistant's language model for the summary in the call's `language`, the signal aborting the request
 * (the caller hung up); a model that fails, answers nothing or takes longer than `SUMMARY_TIMEOUT_MS` leaves the
 * last turns instead, and says why.
 */
export async function summarize(
  llm: { model: LanguageModel; modelName: string; temperature: number },
  history: readonly HistoryEntry[],
  instructions: string,
  caller: AbortSignal,
  language?: string,
): Promise<Summary> {
  const signal = AbortSignal.any([caller, AbortSignal.timeout(SUMMARY_TIMEOUT_MS)]);
  try {
    const written = await untilAborted((async () => {
      let text = '';
      for await (const event of llm.model.stream({ model: llm.modelName, messages: summaryMessages(history, instructions, language), temperature: llm.temperature, signal })) {
        if (event.type === 'token') text += event.text;
      }
      return text.trim();
    })(), signal);
    if (written) return { text: written, source: 'model' };
    return { text: lastTurnsSummary(history, language), source: 'last_turns', error: 'The model answered no summary.' };
  } catch (error) {
    return { text: lastTurnsSummary(history, language), source: 'last_turns', error: error instanceof Error ? error.message : String(error) };
  }
}
