/**
 * The built-in tools that act on the line of a voice call (anchor §5.4): the model calls them like any
 * function, and they reach the call through the `CallLine` port the voice engine provides. A text chat has no
 * line, so they are offered only on calls.
 */
import type { CallLine } from './ports.ts';
import type { AgentTool } from './turn.ts';

/** An assistant's line tools as the engine needs them: the stored settings with their defaults applied. */
export type LineToolSpec = { type: 'collect_keypad'; timeoutSeconds: number; stopKey: '#' | '*' };

/** Lets the model ask for the caller's keypad entry (an account number, a PIN) and hear the digits as the result. */
export function collectKeypadTool(spec: Extract<LineToolSpec, { type: 'collect_keypad' }>, line: CallLine): AgentTool {
  const stopKey = spec.stopKey === '*' ? 'star (*)' : 'pound (#)';
  return {
    definition: {
      name: 'collect_keypad',
      description: 'Collect digits the caller types on their phone keypad, such as an account number or a PIN. '
        + `First ask the caller to type them and to finish with the ${stopKey} key; the result holds the digits typed `
        + `(without the ${stopKey} key), or what was typed before they stopped for ${spec.timeoutSeconds} seconds.`,
      parameters: { type: 'object', properties: {}, additionalProperties: false },
    },
    onLine: true,
    async execute(_args, signal) {
      const entry = await line.collectDigits({ timeoutMs: spec.timeoutSeconds * 1000, stopKey: spec.stopKey }, signal);
      return { digits: entry.digits, ended_by: entry.endedBy };
    },
  };
}

/** The line tools of an assistant, for a call whose line is `line`; one of each kind (the first configured). */
export function lineTools(specs: readonly LineToolSpec[], line: CallLine): AgentTool[] {
  const keypad = specs.find((spec) => spec.type === 'collect_keypad');
  return keypad ? [collectKeypadTool(keypad, line)] : [];
}
