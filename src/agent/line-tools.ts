/**
 * The built-in tools that act on the line of a voice call (anchor §5.4): the model calls them like any
 * function, and they reach the call through the `CallLine` port the voice engine provides. A text chat has no
 * line, so they are offered only on calls.
 */
import type { CallLine } from './ports.ts';
import type { AgentTool } from './turn.ts';

/** An assistant's line tools as the engine needs them: the stored settings with their defaults applied. */
export type LineToolSpec =
  | { type: 'collect_keypad'; timeoutSeconds: number; stopKey: '#' | '*' }
  | { type: 'dtmf_input'; description: string | undefined };

/** The keys `dtmf_input` sends: a keypad's, and `w` for a half-second pause. */
const KEYS = /^[0-9*#A-Dw]{1,32}$/;

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

/** Lets the model press keys towards an automated phone menu (IVR) it has called, as DTMF tones. */
export function dtmfInputTool(spec: Extract<LineToolSpec, { type: 'dtmf_input' }>, line: CallLine): AgentTool {
  return {
    definition: {
      name: 'dtmf_input',
      description: spec.description?.trim()
        || 'Press keys on the phone keypad, to choose an option in an automated phone menu or to type a number it asks for. '
          + 'The keys are played as tones after what you are saying; the result comes once they have been played.',
      parameters: {
        type: 'object',
        properties: {
          digits: { type: 'string', description: 'The keys to press, in order: 0-9, * and #; w waits half a second between keys.', pattern: KEYS.source },
        },
        required: ['digits'],
        additionalProperties: false,
      },
    },
    onLine: true,
    async execute(args, signal) {
      const digits = typeof args.digits === 'string' ? args.digits.replace(/[\s-]/g, '') : '';
      if (!KEYS.test(digits)) throw new Error('digits must be 1 to 32 keys of 0-9, *, #, A-D, or w for a pause');
      await line.sendDigits(digits, signal);
      return { pressed: digits };
    },
  };
}

/** The line tools of an assistant, for a call whose line is `line`; one of each kind (the first configured). */
export function lineTools(specs: readonly LineToolSpec[], line: CallLine): AgentTool[] {
  const tools: AgentTool[] = [];
  for (const spec of specs) {
    if (tools.some((tool) => tool.definition.name === spec.type)) continue;
    if (spec.type === 'collect_keypad') tools.push(collectKeypadTool(spec, line));
    else tools.push(dtmfInputTool(spec, line));
  }
  return tools;
}
