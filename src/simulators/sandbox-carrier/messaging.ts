import { RejectedError } from '../../lib/errors.ts';
import type { SmsRequest } from '../../providers/telephony/types.ts';
import { MessageChannel, type StatusStep } from './message-channel.ts';

/**
 * What becomes of a text the sandbox carrier sends, chosen by the recipient's last two digits as its callees
 * are (the README has the table): a handset gets it; a busy line's phone is out of reach (`undelivered`, after
 * it was sent: carriers charge for it); a voicemail number is a landline, which the carrier refuses to text at
 * once; a number whose calls fail has its message fail before it leaves (`failed`: never charged). Pure.
 */
export type RecipientKind = 'handset' | 'unreachable' | 'landline' | 'failing';

export function recipientFor(phoneNumber: string): RecipientKind {
  const lastTwo = Number(phoneNumber.replace(/\D/g, '').slice(-2));
  if (lastTwo >= 80 && lastTwo <= 84) return 'unreachable';
  if (lastTwo >= 90 && lastTwo <= 94) return 'landline';
  if (lastTwo >= 95 && lastTwo <= 97) return 'failing';
  return 'handset';
}

/** The status callbacks a message accepted for each recipient gets, in order, with Twilio's error code where it ends badly. */
const progress: Record<Exclude<RecipientKind, 'landline'>, StatusStep[]> = {
  handset: [['sent'], ['delivered']],
  // Twilio's 30003: "Unreachable destination handset".
  unreachable: [['sent'], ['undelivered', 30003]],
  // Twilio's 30008: "Unknown error".
  failing: [['failed', 30008]],
};

/** How long a message stays readable. */
const KEEP_MS = 10 * 60 * 1000;

/** What the carrier saw of one message. */
export interface SimulatedMessage {
  sid: string;
  /** `outbound-api`: Parley sent it; `inbound`: a simulated phone texted one of Parley's numbers. */
  direction: 'outbound-api' | 'inbound';
  from: string;
  to: string;
  body: string;
  status: string;
}

/**
 * The sandbox carrier's text messages: it takes a message from one of its numbers and reports each status change
 * to the message's callback as Twilio does, and it texts Parley's numbers from a simulated phone through their
 * messaging webhook. Messages live in memory, as calls do.
 */
export class SandboxMessaging extends MessageChannel {
  protected readonly noun = 'message';
  private readonly messages = new Map<string, SimulatedMessage>();

  /**
   * Accepts a message for delivery, answering it `queued`; its status callbacks follow. A landline is refused
   * (a `RejectedError`, as Twilio's error 21614), and nothing is reported for it.
   */
  send(request: SmsRequest): SimulatedMessage {
    const recipient = recipientFor(request.to);
    if (recipient === 'landline') throw new RejectedError(`'To' number ${request.to} is not a valid mobile number: it is a landline (the sandbox carrier's numbers ending in 90 to 94, as Twilio's error 21614).`);
    const message = this.keep({ sid: this.newSid(), direction: 'outbound-api', from: request.from, to: request.to, body: request.body, status: 'queued' });
    this.report(message, request.statusCallbackUrl, progress[recipient], { From: message.from, To: message.to });
    return { ...message };
  }

  /**
   * A simulated phone texts `to` (one of Parley's numbers): the message is posted to Parley's messaging webhook,
   * signed, and the HTTP status Parley answered is returned.
   */
  async receive(text: { from: string; to: string; body: string }): Promise<{ sid: string; answered: number }> {
    const message = this.keep({ sid: this.newSid(), direction: 'inbound', ...text, status: 'received' });
    return { sid: message.sid, answered: await this.postToParley(message.sid, { From: text.from, To: text.to, Body: text.body }) };
  }

  get(sid: string): SimulatedMessage | undefined {
    const message = this.messages.get(sid);
    return message && { ...message };
  }

  private keep(message: SimulatedMessage): SimulatedMessage {
    this.messages.set(message.sid, message);
    setTimeout(() => this.messages.delete(message.sid), KEEP_MS).unref();
    return message;
  }
}
