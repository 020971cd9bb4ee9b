import { randomBytes } from 'node:crypto';
import { pause } from '../../lib/abort.ts';
import type { TransferRequest } from '../../providers/telephony/types.ts';
import { timings, type CalleeKind } from './callees.ts';
import type { SimulatedCall } from './simulated-call.ts';
import { sayText } from './twiml.ts';

/** Posts a signed webhook of the call and answers its body ('' when it failed, which the carrier logs). */
export type PostWebhook = (url: string, form: URLSearchParams, what: string) => Promise<string>;

export interface Handover {
  /** The call being handed over, its `transfer` set when Parley asked for it. */
  call: SimulatedCall;
  request: TransferRequest;
  /** Aborted when the call ends at either end, or the carrier stops. */
  signal: AbortSignal;
  accountSid: string;
  post: PostWebhook;
}

/**
 * The caller of a transferred call is connected to the number's callee: it rings, is busy, fails or never
 * answers like a dialled callee; one who answers hears the whisper (a warm transfer), talks with the caller
 * for a while and hangs up. The outcome is posted to the transfer's outcome URL as Twilio posts a `<Dial
 * action>`, then the call ends.
 */
export async function bridgeTransfer({ call, request, signal, accountSid, post }: Handover): Promise<void> {
  const transfer = call.transfer!;
  const startedAt = Date.now();
  const ringing: Partial<Record<CalleeKind, [number, string]>> = {
    'busy': [timings.busyAfterMs, 'busy'],
    'failed': [timings.failAfterMs, 'failed'],
    'no-answer': [request.ringTimeoutSeconds * 1000, 'no-answer'],
  };
  const [ringMs, outcome] = ringing[transfer.callee] ?? [timings.answerAfterMs, 'completed'];
  if (!await pause(timings.ringAfterMs + ringMs, signal)) transfer.status = 'canceled';
  else if (outcome !== 'completed') transfer.status = outcome;
  else {
    transfer.answeredAt = Date.now();
    if (request.whisperUrl) transfer.whisper = await whisper(call, request.whisperUrl, accountSid, post);
    const talkMs = transfer.callee === 'silent-hang-up' ? timings.silentHangUpAfterMs : timings.bridgedTalkMs;
    transfer.status = await pause(talkMs, signal) ? 'completed' : 'canceled';
  }
  transfer.endedAt = Date.now();
  const duration = transfer.answeredAt ? Math.ceil((transfer.endedAt - transfer.answeredAt) / 1000) : 0;
  const form = new URLSearchParams({
    AccountSid: accountSid, CallSid: call.sid, CallStatus: 'in-progress', DialCallSid: `CA${randomBytes(16).toString('hex')}`,
    DialCallStatus: transfer.status, DialCallDuration: String(duration), DialBridged: String(transfer.answeredAt !== undefined),
  });
  await post(request.outcomeUrl, form, `the transfer's outcome (${transfer.status}, ${Date.now() - startedAt} ms)`);
}

/** What Parley's whisper URL tells the person answering a warm transfer to hear: the text of its `<Say>`. */
async function whisper(call: SimulatedCall, url: string, accountSid: string, post: PostWebhook): Promise<string> {
  const form = new URLSearchParams({ AccountSid: accountSid, CallSid: call.sid, CallStatus: 'in-progress', Direction: 'outbound-dial' });
  return sayText(await post(url, form, 'the whisper'));
}
