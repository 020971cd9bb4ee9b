/**
 * The built-in tools that act on the line of a voice call (anchor §5.4): the model calls them like any
 * function, and they reach the call through the `CallLine` port the voice engine provides. A text chat has no
 * line, so they are offered only on calls.
 */
import type { CallLine, SupervisorTransfer } from './ports.ts';
import type { AgentTool } from './turn.ts';

/** An assistant's line tools as the engine needs them: the stored settings with their defaults applied. */
export type LineToolSpec =
  | { type: 'collect_keypad'; timeoutSeconds: number; stopKey: '#' | '*' }
  | { type: 'dtmf_input'; description: string | undefined }
  | {
    type: 'call_transfer';
    /** E.164; with `custom`, the model gives the number instead. */
    phoneNumber: string;
    custom: boolean;
    description: string | undefined;
    /** A warm transfer: the person answering hears `warmTransferMessage` before the caller is connected. */
    warmTransfer: boolean;
    warmTransferMessage: string | undefined;
  }
  | ({ type: 'warm_call_transfer'; description: string } & SupervisorTransfer)
  | {
    type: 'assistant_transfer';
    /** Another assistant of the same owner, and its name. */
    assistantId: number;
    assistantName: string;
    description: string | undefined;
    /** Said by this assistant before the other one takes over. */
    messageBeforeTransfer: string | undefined;
    /** The assistant taking over opens with its own initial message. */
    speakTransferGreeting: boolean;
  };

/** What the person answering a warm transfer hears when the assistant configures no message. */
export const DEFAULT_WARM_TRANSFER_MESSAGE = 'Hello, this is an AI assistant. I am transferring a caller to you now.';

const E164 = /^\+[1-9]\d{6,14}$/;

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

/** The number a transfer goes to: the configured one, or with `custom` the one the model gives (E.164). */
function transferNumber(spec: Extract<LineToolSpec, { type: 'call_transfer' }>, args: Record<string, unknown>): string {
  if (!spec.custom) return spec.phoneNumber;
  const given = typeof args.phone_number === 'string' ? args.phone_number.replace(/[\s().-]/g, '') : '';
  if (!E164.test(given)) throw new Error('phone_number must be a phone number in E.164 format, such as +14155550123');
  return given;
}

/**
 * Lets the model hand the caller over to a person at a phone number (the `call_transfer` built-in). Calling it
 * ends the conversation: the model's closing words are said, then the carrier connects the caller to the
 * number and the assistant leaves the call.
 */
export function callTransferTool(
  spec: Extract<LineToolSpec, { type: 'call_transfer' }>, name: string, checkTransfer: (phoneNumber: string) => Promise<void>,
): AgentTool {
  return {
    definition: {
      name,
      description: `${spec.description?.trim() || 'Transfer the call to a human colleague when the caller asks for a person or needs help you cannot give.'} `
        + 'Tell the caller you are transferring them before you call this; the call is connected once you have finished speaking.',
      parameters: spec.custom
        ? {
          type: 'object',
          properties: { phone_number: { type: 'string', description: 'The number to transfer the call to, in E.164 format (+ and the country code).' } },
          required: ['phone_number'],
          additionalProperties: false,
        }
        : { type: 'object', properties: {}, additionalProperties: false },
    },
    ends: true,
    async execute(args) {
      await checkTransfer(transferNumber(spec, args));
      return { transferring: true };
    },
    handoff: (args) => ({
      kind: 'phone',
      phoneNumber: transferNumber(spec, args),
      whisper: spec.warmTransfer ? spec.warmTransferMessage?.trim() || DEFAULT_WARM_TRANSFER_MESSAGE : undefined,
    }),
  };
}

/**
 * Lets the model hand the caller to a supervisor with a briefing (the `warm_call_transfer` built-in). Calling
 * it ends the conversation with the model: its closing words are said, then the hold message, and the
 * carrier holds the caller while the supervisor is rung and briefed.
 */
export function warmCallTransferTool(
  spec: Extract<LineToolSpec, { type: 'warm_call_transfer' }>, name: string, checkTransfer: (phoneNumber: string) => Promise<void>,
): AgentTool {
  const { type: _type, description, ...transfer } = spec;
  return {
    definition: {
      name,
      description: `${description.trim()} `
        + 'The caller is put on hold while a colleague is called and briefed on this conversation, then connected. '
        + 'Tell the caller you are connecting them before you call this.',
      parameters: { type: 'object', properties: {}, additionalProperties: false },
    },
    ends: true,
    async execute() {
      await checkTransfer(spec.supervisorPhone);
      return { transferring: true };
    },
    handoff: () => ({ kind: 'supervisor', transfer }),
  };
}

/**
 * Lets the model hand the call over to another of the owner's assistants (the `assistant_transfer` built-in):
 * the same call goes on with that assistant's prompt, voice and tools, once this one's closing words (and its
 * `message_before_transfer`) have been said.
 */
export function assistantTransferTool(
  spec: Extract<LineToolSpec, { type: 'assistant_transfer' }>, name: string, checkAssistant: (assistantId: number) => Promise<void>,
): AgentTool {
  return {
    definition: {
      name,
      description: `${spec.description?.trim() || `Hand the call over to the assistant "${spec.assistantName}", who takes the conversation from here.`} `
        + `It takes over once you have finished speaking (the assistant "${spec.assistantName}").`,
      parameters: { type: 'object', properties: {}, additionalProperties: false },
    },
    ends: true,
    async execute() {
      await checkAssistant(spec.assistantId);
      return { transferring_to: spec.assistantName };
    },
    handoff: () => ({ kind: 'assistant', assistantId: spec.assistantId, message: spec.messageBeforeTransfer?.trim() || undefined, greet: spec.speakTransferGreeting }),
  };
}

/**
 * The line tools of an assistant, for a call whose line is `line`: one keypad entry and one key sender (the
 * first configured), every transfer to a number (`call_transfer`, `call_transfer_2`, ...) and to a supervisor
 * (`warm_call_transfer`, ...) where the line can be transferred, and every transfer to another assistant (`assistant_transfer`, ...) where the engine can
 * hand the call over.
 */
export function lineTools(specs: readonly LineToolSpec[], line: CallLine): AgentTool[] {
  const tools: AgentTool[] = [];
  const named = (type: string) => tools.some((tool) => tool.definition.name === type);
  let transfers = 0;
  let warmTransfers = 0;
  let handovers = 0;
  for (const spec of specs) {
    if (spec.type === 'collect_keypad' && !named(spec.type)) tools.push(collectKeypadTool(spec, line));
    if (spec.type === 'dtmf_input' && !named(spec.type)) tools.push(dtmfInputTool(spec, line));
    const check = line.checkTransfer;
    if (spec.type === 'call_transfer' && check) {
      transfers++;
      tools.push(callTransferTool(spec, transfers === 1 ? 'call_transfer' : `call_transfer_${transfers}`, check));
    }
    if (spec.type === 'warm_call_transfer' && check) {
      warmTransfers++;
      tools.push(warmCallTransferTool(spec, warmTransfers === 1 ? 'warm_call_transfer' : `warm_call_transfer_${warmTransfers}`, check));
    }
    const checkAssistant = line.checkAssistant;
    if (spec.type === 'assistant_transfer' && checkAssistant) {
      handovers++;
      tools.push(assistantTransferTool(spec, handovers === 1 ? 'assistant_transfer' : `assistant_transfer_${handovers}`, checkAssistant));
    }
  }
  return tools;
}
