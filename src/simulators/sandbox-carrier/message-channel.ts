import { randomBytes } from 'node:crypto';
import { pause } from '../../lib/abort.ts';
import type { Logger } from '../../logger.ts';
import { postSigned } from './webhook.ts';

/** The carrier's account and key, and where Parley is: what a channel reports with. */
export interface ChannelOptions {
  logger: Logger;
  accountSid: string;
  token: () => string;
  parleyUrl: () => string;
}

/** A status a message moves to, with Twilio's error code where it ends badly. */
export type StatusStep = [status: string, errorCode?: number];

/** The pause before each status change, as a network shows them. */
export const messageTimings = { stepMs: 100 };

/**
 * What the sandbox carrier's text and WhatsApp channels share, as Twilio does them: message sids, each status
 * change reported after a pause to the message's callback (a form signed with `X-Twilio-Signature`; a callback
 * that fails is logged, not retried), and what a simulated phone writes posted to Parley's messaging webhook.
 * Closing stops the reports; those under way finish or give up.
 */
export abstract class MessageChannel {
  protected readonly options: ChannelOptions;
  private readonly stopping = new AbortController();
  private readonly pending = new Set<Promise<void>>();
  /** How logs name the channel's messages: `message`, `WhatsApp message`. */
  protected abstract readonly noun: string;

  constructor(options: ChannelOptions) {
    this.options = options;
  }

  async close(): Promise<void> {
    this.stopping.abort();
    await Promise.all(this.pending);
  }

  protected newSid(): string {
    return `SM${randomBytes(16).toString('hex')}`;
  }

  /**
   * Posts a message a simulated phone wrote (`sid`, `From`, `To`, `Body` and the channel's own fields) to Parley's
   * messaging webhook, signed; answers the HTTP status Parley answered.
   */
  protected async postToParley(sid: string, text: { From: string; To: string; Body: string }, extra: Record<string, string> = {}): Promise<number> {
    const form = new URLSearchParams({
      AccountSid: this.options.accountSid, ApiVersion: '2010-04-01', MessageSid: sid, SmsMessageSid: sid, SmsSid: sid, SmsStatus: 'received',
      ...text, NumMedia: '0', ...extra,
    });
    const response = await postSigned(this.options.token(), `${this.options.parleyUrl()}/api/telephony/sandbox/messages`, form);
    await response.body?.cancel();
    return response.status;
  }

  /**
   * Moves `message` through `steps`, each after a pause of `stepMs`, reporting each to `callbackUrl` (none: the
   * status changes unreported) with the channel's `addresses` (`From`, `To` and the like) beside the status.
   */
  protected report(message: { sid: string; status: string }, callbackUrl: string | undefined, steps: StatusStep[], addresses: Record<string, string>, stepMs = messageTimings.stepMs): void {
    const work = this.reportSteps(message, callbackUrl, steps, addresses, stepMs);
    const tracked = work.catch((error: unknown) => this.options.logger.error({ err: error }, `a simulated ${this.noun} broke`)).finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  private async reportSteps(message: { sid: string; status: string }, callbackUrl: string | undefined, steps: StatusStep[], addresses: Record<string, string>, stepMs: number): Promise<void> {
    for (const [status, errorCode] of steps) {
      if (!await pause(stepMs, this.stopping.signal)) return;
      message.status = status;
      if (!callbackUrl) continue;
      const form = new URLSearchParams({
        AccountSid: this.options.accountSid, ApiVersion: '2010-04-01', MessageSid: message.sid, SmsSid: message.sid, MessageStatus: status, SmsStatus: status, ...addresses,
      });
      if (errorCode !== undefined) form.set('ErrorCode', String(errorCode));
      try {
        const answer = await postSigned(this.options.token(), callbackUrl, form);
        await answer.body?.cancel();
        if (!answer.ok) this.options.logger.warn({ messageSid: message.sid, status, answered: answer.status }, `a ${this.noun} status callback was refused`);
      } catch (error) {
        this.options.logger.warn({ err: error, messageSid: message.sid, status }, `a ${this.noun} status callback could not be delivered`);
      }
    }
  }
}
