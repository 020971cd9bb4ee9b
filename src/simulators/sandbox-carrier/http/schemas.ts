import { Type } from '@sinclair/typebox';
import { MESSAGES } from '../../../api/validation.ts';

/**
 * The bodies of the sandbox carrier's API, their fields in the order the carrier checks them. A body that fails
 * its schema is answered 400 with the first field's text (`invalidBody: 'bad_request'`), as the carrier answers
 * any request it refuses: its adapter takes a 400 as a refusal. Whether a number is a valid E.164 one the
 * handlers check, naming the number.
 */

/** The longest text the sandbox carrier sends, as Twilio's limit for a message's body. */
export const MAX_MESSAGE_LENGTH = 1600;

/** Options of a field whose every failure (missing, of another type, out of its bounds) is answered with `text`. */
function saying(text: string | undefined): { [MESSAGES]?: Record<string, string> } {
  const keywords = ['required', 'type', 'minLength', 'maxLength', 'minItems', 'maxItems'];
  return text === undefined ? {} : { [MESSAGES]: Object.fromEntries(keywords.map((keyword) => [keyword, text])) };
}

const Phone = (description: string, text?: string) => Type.String({ description: `${description}, E.164.`, ...saying(text) });
const Url = (description: string, text?: string) => Type.String({ description, ...saying(text) });
const RingTimeout = (text?: string) => Type.Number({ description: 'How long the phone rings before the carrier gives up with `no-answer`.', ...saying(text) });

export const DialBody = Type.Object({
  to: Phone('The callee'),
  from: Phone('One of the carrier\'s numbers'),
  stream: Type.Object({ url: Type.String(), parameters: Type.Record(Type.String(), Type.String()) }, { description: 'The Media Streams URL the answered call connects to, and its custom parameters.' }),
  statusCallbackUrl: Url('Where each status change is posted, signed as Twilio signs.'),
  ringTimeoutSeconds: RingTimeout(),
  answeredByCallbackUrl: Type.Optional(Url('Where an answering-machine verdict would be posted (the sandbox carrier never gives one).')),
  idempotencyKey: Type.Optional(Type.String({ minLength: 1, maxLength: 255, ...saying('An `idempotencyKey` is a string of 1 to 255 characters.') })),
});

const needsCaller = 'A call needs a valid E.164 `from` and a `to`.';
export const InboundCallBody = Type.Object({
  from: Phone('The simulated caller', needsCaller),
  to: Phone('A number the carrier holds', needsCaller),
  lines: Type.Optional(Type.Array(Type.String(), { description: 'What the caller says, one line after each assistant turn; the first 20.' })),
});

const needsTransfer = 'A transfer needs an outcomeUrl and ringTimeoutSeconds.';
export const TransferBody = Type.Object({
  to: Phone('Where the caller is connected'),
  callerId: Phone('The number the person answering sees calling'),
  whisperUrl: Type.Optional(Url('For a warm transfer: where the carrier asks what the person answering hears first (TwiML).')),
  outcomeUrl: Url('Where the outcome is posted, as Twilio posts a `<Dial action>`.', needsTransfer),
  ringTimeoutSeconds: RingTimeout(needsTransfer),
});

const needsWarmTransfer = 'A warm transfer needs a room, supervisorTwiml, supervisorStatusUrl and ringTimeoutSeconds.';
export const WarmTransferBody = Type.Object({
  to: Phone('The supervisor'),
  callerId: Phone('The number the supervisor sees calling'),
  room: Type.String({ description: 'The conference the caller waits in.', ...saying(needsWarmTransfer) }),
  holdMusicUrl: Type.Optional(Url('What the caller hears while waiting (a WAV file); silence without it.')),
  supervisorTwiml: Type.String({ description: 'What the supervisor\'s call follows once answered.', ...saying(needsWarmTransfer) }),
  supervisorStatusUrl: Url('Where the supervisor\'s call status changes are posted.', needsWarmTransfer),
  ringTimeoutSeconds: RingTimeout(needsWarmTransfer),
});

export const UpdateBody = Type.Object({
  twiml: Type.String({ description: '`<Response>…</Response>`', ...saying('An update needs its twiml.') }),
});

const needsScript = 'A script needs 1 to 20 `lines` of 1 to 500 characters.';
export const ScriptBody = Type.Object({
  phone_number: Phone('The callee\'s number', 'A script needs a valid E.164 `phone_number`.'),
  lines: Type.Array(Type.String({ minLength: 1, maxLength: 500, ...saying(needsScript) }), { minItems: 1, maxItems: 20, ...saying(needsScript) }),
});

/** A text or a WhatsApp message one of the carrier's numbers sends. */
export const SendBody = Type.Object({
  to: Phone('The recipient'),
  from: Phone('One of the carrier\'s numbers'),
  body: Type.String({ minLength: 1, maxLength: MAX_MESSAGE_LENGTH, ...saying(`A message needs a body of 1 to ${MAX_MESSAGE_LENGTH} characters.`) }),
  statusCallbackUrl: Url('Where each status change is posted, signed as Twilio signs.', 'A message needs a `statusCallbackUrl`.'),
  template: Type.Optional(Type.Object({ contentSid: Type.String(), variables: Type.Record(Type.String(), Type.String()) }, {
    description: 'WhatsApp only: the template sent, which the sandbox carrier delivers as `body`, its rendered text.',
  })),
});

const needsText = 'A message needs a valid E.164 `from`, a `to` and a `body`.';
export const InboundMessageBody = Type.Object({
  from: Phone('The simulated phone', needsText),
  to: Phone('One of Parley\'s numbers', needsText),
  body: Type.String({ description: `The text; past ${MAX_MESSAGE_LENGTH} characters it is cut.`, ...saying(needsText) }),
});
