/** One committed turn of a call as the engine stores it (the `turns` column); only the fields read here. */
export interface SpokenTurn {
  role: 'assistant' | 'user';
  text: string;
}

/**
 * The contract's transcript of a call: one line per turn, `AI: …` for the assistant and `Customer: …` for the
 * caller, in the order spoken. Turns without words (a barge-in before the first word) leave no line.
 */
export function callTranscript(turns: readonly SpokenTurn[]): string {
  return turns
    .map((turn) => ({ speaker: turn.role === 'assistant' ? 'AI' : 'Customer', text: turn.text.replace(/\s+/g, ' ').trim() }))
    .filter((line) => line.text !== '')
    .map((line) => `${line.speaker}: ${line.text}`)
    .join('\n');
}
