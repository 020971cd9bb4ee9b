import type { Logger } from '../../logger.ts';
import type { SimulatedCall } from './simulated-call.ts';
import { postSigned } from './webhook.ts';

/** How the carrier's webhooks reach Parley: signed with the token, sent where `reach` says the URL is. */
export interface Webhooks {
  token: () => string;
  reach?: (url: string) => string;
  logger: Logger;
}

/**
 * How a call reports itself when the carrier plays it for Twilio's fake instead of the sandbox's adapter: the
 * call's sid is Twilio's, and only the status changes Twilio would post are posted.
 */
export interface ReportedAs {
  sid: string;
  /**
   * The status changes posted besides the final one, as `StatusCallbackEvent` names them (`initiated`,
   * `ringing`, `answered`): none for an incoming call's number, whose status callback hears only the end;
   * without it, every change, as the sandbox carrier posts them.
   */
  events?: string[];
  /** Where the verdict of Twilio's asynchronous answering-machine detection goes, when it was asked for. */
  verdictUrl?: string;
}

/** Twilio posts the end of a call whatever `StatusCallbackEvent` asked for. */
const FINAL_STATUSES = new Set(['completed', 'busy', 'no-answer', 'failed', 'canceled']);

/**
 * What the carrier tells Parley of one call, as Twilio tells it: each status change posted to the call's status
 * callback after the ones before it (a `SequenceNumber` each), the answering-machine verdict when one was asked
 * for, and the call's other webhooks (a transfer's). A webhook that fails is logged, not retried.
 */
export class CallReports {
  private sequence = 0;
  private reported = Promise.resolve();
  private readonly call: SimulatedCall;
  private readonly options: { accountSid: string; webhooks: Webhooks; as?: ReportedAs; observe?: (call: SimulatedCall) => void };

  constructor(call: SimulatedCall, options: CallReports['options']) {
    this.call = call;
    this.options = options;
  }

  /** Records the call's new status and posts it; resolves once Parley has answered it (or at once, when not posted). */
  status(status: string, extra: Record<string, string> = {}): Promise<void> {
    const { call, options } = this;
    call.status = status;
    options.observe?.(call);
    const event = status === 'in-progress' ? 'answered' : status;
    // Twilio posts nothing for a call placed without a status callback.
    if (!call.request.statusCallbackUrl) return this.reported;
    if (options.as?.events && !FINAL_STATUSES.has(status) && !options.as.events.includes(event)) return this.reported;
    const form = new URLSearchParams({
      AccountSid: options.accountSid, ApiVersion: '2010-04-01', CallSid: call.sid, CallStatus: status, Direction: call.direction,
      From: call.request.from, To: call.request.to, SequenceNumber: String(this.sequence++), Timestamp: new Date().toUTCString().replace('GMT', '+0000'),
      ...extra,
    });
    this.reported = this.reported.then(async () => {
      await this.post(call.request.statusCallbackUrl, form, `the status callback ${status}`);
    });
    return this.reported;
  }

  /**
   * The answering-machine detection's verdict (`human`, `machine_end_beep`), posted as Twilio posts it, when it
   * was asked for and the call is still up; Parley's own detector judges every call, so the sandbox never says.
   */
  verdict(answeredBy: string, detectedInMs: number): void {
    const { call, options } = this;
    const url = options.as?.verdictUrl;
    if (!url || call.answeredBy || call.endedAt) return;
    call.answeredBy = answeredBy;
    options.observe?.(call);
    const form = new URLSearchParams({ AccountSid: options.accountSid, CallSid: call.sid, AnsweredBy: answeredBy, MachineDetectionDuration: String(detectedInMs) });
    void this.post(url, form, `the answering-machine verdict ${answeredBy}`);
  }

  /** Posts a signed webhook of the call and answers its body; one that fails is logged and answers nothing. */
  async post(url: string, form: URLSearchParams, what: string): Promise<string> {
    const { token, reach, logger } = this.options.webhooks;
    try {
      const response = await postSigned(token(), url, form, reach);
      if (!response.ok) logger.warn({ callSid: this.call.sid, answered: response.status }, `${what} was refused`);
      return response.ok ? await response.text() : '';
    } catch (error) {
      logger.warn({ err: error, callSid: this.call.sid }, `${what} could not be delivered`);
      return '';
    }
  }
}
