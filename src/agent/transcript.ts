/** One committed turn of a call as the engine stores it (the `turns` column); only the fields read here. */
export interface SpokenTurn {
  /** `handover`: another assistant took the call over, the text its name. */
  role: 'assistant' | 'user' | 'handover';
  text: string;
}

/**
 * The contract's transcript of a call: one line per turn, `AI: …` for the assistant and `Customer: …` for the
 * caller, in the order spoken, and `[Transferred to the assistant …]` where another assistant took over.
 * Turns without words (a barge-in before the first word) leave no line.
 */
export function callTranscript(turns: readonly SpokenTurn[]): string {
  return turns
    .map((turn) => ({ role: turn.role, text: turn.text.replace(/\s+/g, ' ').trim() }))
    .filter((line) => line.text !== '')
    .map((line) => {
      if (line.role === 'handover') return `[Transferred to the assistant ${line.text}]`;
      return `${line.role === 'assistant' ? 'AI' : 'Customer'}: ${line.text}`;
    })
    .join('\n');
}
