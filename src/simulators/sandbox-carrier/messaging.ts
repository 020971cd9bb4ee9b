import { randomBytes } from 'node:crypto';
import { pause } from '../../lib/abort.ts';
import { RejectedError } from '../../lib/errors.ts';
import type { Logger } from '../../logger.ts';
import type { SmsRequest } from '../../providers/telephony/types.ts';
import { postSigned } from './webhook.ts';

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
const progress: Record<Exclude<RecipientKind, 'landline'>, [status: string, errorCode?: number][]> = {
  handset: [['sent'], ['delivered']],
  // Twilio's 30003: "Unreachable destination handset".
  unreachable: [['sent'], ['undelivered', 30003]],
  // Twilio's 30008: "Unknown error".
  failing: [['failed', 30008]],
};

/** The pause before each status change, as a network shows them. */
export const messageTimings = { stepMs: 100 };

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
 * to the message's callback as Twilio does (a form signed with `X-Twilio-Signature`), and it texts Parley's
 * numbers from a simulated phone through their messaging webhook. Messages live in memory, as calls do.
 */
export class SandboxMessaging {
  private readonly messages = new Map<string, SimulatedMessage>();
  private readonly stopping = new AbortController();
  private readonly pending = new Set<Promise<void>>();

  private readonly options: { logger: Logger; accountSid: string; token: () => string; parleyUrl: () => string };

  constructor(options: { logger: Logger; accountSid: string; token: () => string; parleyUrl: () => string }) {
    this.options = options;
  }

  /**
   * Accepts a message for delivery, answering it `queued`; its status callbacks follow. A landline is refused
   * (a `RejectedError`, as Twilio's error 21614), and nothing is reported for it.
   */
  send(request: SmsRequest): SimulatedMessage {
    const recipient = recipientFor(request.to);
    if (recipient === 'landline') throw new RejectedError(`'To' number ${request.to} is not a valid mobile number: it is a landline (the sandbox carrier's numbers ending in 90 to 94, as Twilio's error 21614).`);
    const message = this.keep({ sid: `SM${randomBytes(16).toString('hex')}`, direction: 'outbound-api', from: request.from, to: request.to, body: request.body, status: 'queued' });
    this.track(this.deliver(message, request.statusCallbackUrl, progress[recipient]));
    return { ...message };
  }

  /**
   * A simulated phone texts `to` (one of Parley's numbers): the message is posted to Parley's messaging webhook,
   * signed, and the HTTP status Parley answered is returned.
   */
  async receive(text: { from: string; to: string; body: string }): Promise<{ sid: string; answered: number }> {
    const message = this.keep({ sid: `SM${randomBytes(16).toString('hex')}`, direction: 'inbound', ...text, status: 'received' });
    const form = new URLSearchParams({
      AccountSid: this.options.accountSid, ApiVersion: '2010-04-01', MessageSid: message.sid, SmsMessageSid: message.sid, SmsSid: message.sid,
      SmsStatus: 'received', From: text.from, To: text.to, Body: text.body, NumMedia: '0',
    });
    const response = await postSigned(this.options.token(), `${this.options.parleyUrl()}/api/telephony/sandbox/messages`, form);
    await response.body?.cancel();
    return { sid: message.sid, answered: response.status };
  }

  get(sid: string): SimulatedMessage | undefined {
    const message = this.messages.get(sid);
    return message && { ...message };
  }

  /** Stops reporting (the process stops); reports under way finish or give up. */
  async close(): Promise<void> {
    this.stopping.abort();
    await Promise.all(this.pending);
  }

  private keep(message: SimulatedMessage): SimulatedMessage {
    this.messages.set(message.sid, message);
    setTimeout(() => this.messages.delete(message.sid), KEEP_MS).unref();
    return message;
  }

  private track(work: Promise<void>): void {
    const tracked = work.catch((error: unknown) => this.options.logger.error({ err: error }, 'a simulated message broke')).finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  /** Reports each status change after a pause; a callback that fails is logged, not retried. */
  private async deliver(message: SimulatedMessage, callbackUrl: string, steps: [string, number?][]): Promise<void> {
    for (const [status, errorCode] of steps) {
      if (!await pause(messageTimings.stepMs, this.stopping.signal)) return;
      message.status = status;
      const form = new URLSearchParams({
        AccountSid: this.options.accountSid, ApiVersion: '2010-04-01', MessageSid: message.sid, SmsSid: message.sid,
        MessageStatus: status, SmsStatus: status, From: message.from, To: message.to,
      });
      if (errorCode !== undefined) form.set('ErrorCode', String(errorCode));
      try {
        const answer = await postSigned(this.options.token(), callbackUrl, form);
        await answer.body?.cancel();
        if (!answer.ok) this.options.logger.warn({ messageSid: message.sid, status, answered: answer.status }, 'a message status callback was refused');
      } catch (error) {
        this.options.logger.warn({ err: error, messageSid: message.sid, status }, 'a message status callback could not be delivered');
      }
    }
  }
}
