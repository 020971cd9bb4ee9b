import twilio from 'twilio';
import { RejectedError } from '../../lib/errors.ts';
import { parseUsd } from '../../lib/money.ts';
import { carrierError, restError } from './twilio-errors.ts';
import type { CallRequest, CarrierCalls, DialAttempt, TransferRequest, WarmTransferRequest } from './types.ts';

/**
 * The TwiML a caller waits for a supervisor with: alone in the conference `room`, which does not start with
 * them, hearing `holdMusicUrl` in a loop (Twilio's `waitUrl`; an empty one is silence). Parley moves the caller
 * out of it (a call update) to be connected or to hear why not, so leaving it ends nothing.
 */
export function holdTwiml(room: string, holdMusicUrl: string | undefined): string {
  const twiml = new twilio.twiml.VoiceResponse();
  twiml.dial().conference({
    waitUrl: holdMusicUrl ?? '', waitMethod: 'GET', startConferenceOnEnter: false, endConferenceOnExit: false, beep: 'false',
  }, room);
  return twiml.toString();
}

/** Every status change Twilio can call back with, so the call's workflow follows it from dial to hang-up. */
const STATUS_EVENTS = ['initiated', 'ringing', 'answered', 'completed'];

/** Twilio dates its calls to the second, by its own clock: a call of the attempt may read this much earlier. */
const CLOCK_ALLOWANCE_MS = 2000;

/**
 * Twilio's Calls API takes no idempotency key, so a retried dial looks for the call an earlier try created:
 * one from the same number to the same callee, created since the attempt began. Filtered by To and From at
 * Twilio and by `date_created` here: Twilio's StartTime filter would miss a call still queued, which has no
 * start time yet. The oldest such call is the attempt's.
 */
async function callOfAttempt(client: twilio.Twilio, request: CallRequest, attempt: DialAttempt): Promise<string | undefined> {
  const since = attempt.since.getTime() - CLOCK_ALLOWANCE_MS;
  const recent = await client.calls.list({ to: request.to, from: request.from, limit: 20 });
  const ofAttempt = recent.filter((call) => call.dateCreated && call.dateCreated.getTime() >= since)
    .sort((a, b) => a.dateCreated.getTime() - b.dateCreated.getTime());
  return ofAttempt[0]?.sid;
}

/**
 * Calls through Twilio's Calls API: the answered call is connected by `<Connect><Stream>` to the media
 * gateway, the stream's parameters riding along as `<Parameter>`s, and each status change is posted to Parley.
 * With a verdict URL, Twilio's asynchronous answering-machine detection runs beside the stream (the call is
 * connected at once) and posts its AnsweredBy there; `DetectMessageEnd` waits for a machine's greeting to end,
 * so its verdict also says the box is ready for a message.
 * https://www.twilio.com/docs/voice/answering-machine-detection
 */
export function twilioCalls(client: twilio.Twilio): CarrierCalls {
  return {
    async placeCall(request: CallRequest, attempt: DialAttempt) {
      const earlier = attempt.retried ? await callOfAttempt(client, request, attempt) : undefined;
      if (earlier) return { providerCallId: earlier };
      const twiml = new twilio.twiml.VoiceResponse();
      const stream = twiml.connect().stream({ url: request.stream.url });
      for (const [name, value] of Object.entries(request.stream.parameters)) stream.parameter({ name, value });
      try {
        const call = await client.calls.create({
          to: request.to,
          from: request.from,
          twiml: twiml.toString(),
          timeout: request.ringTimeoutSeconds,
          statusCallback: request.statusCallbackUrl,
          statusCallbackMethod: 'POST',
          statusCallbackEvent: STATUS_EVENTS,
          ...(request.answeredByCallbackUrl
            ? { machineDetection: 'DetectMessageEnd', asyncAmd: 'true', asyncAmdStatusCallback: request.answeredByCallbackUrl, asyncAmdStatusCallbackMethod: 'POST' }
            : {}),
        });
        return { providerCallId: call.sid };
      } catch (error) {
        throw carrierError(error, `call ${request.to}`);
      }
    },

    async endCall(providerCallId) {
      // Twilio cancels a call that rings and completes one that is up; each leaves the other kind alone.
      let status: string;
      try {
        status = (await client.calls(providerCallId).fetch()).status;
      } catch (error) {
        if (restError(error)?.status === 404) return;
        throw error;
      }
      if (status === 'queued' || status === 'ringing') await client.calls(providerCallId).update({ status: 'canceled' });
      else if (status === 'in-progress') await client.calls(providerCallId).update({ status: 'completed' });
    },

    /**
     * Replaces the live call's TwiML with a `<Dial>` of the number: Twilio ends the `<Connect><Stream>` (the
     * media session), rings `to`, plays the whisper TwiML to whoever answers, bridges the caller, and posts
     * the outcome to the `<Dial action>`.
     */
    async transferCall(providerCallId: string, request: TransferRequest) {
      const twiml = new twilio.twiml.VoiceResponse();
      const dial = twiml.dial({ action: request.outcomeUrl, method: 'POST', callerId: request.callerId, timeout: request.ringTimeoutSeconds });
      dial.number(request.whisperUrl ? { url: request.whisperUrl, method: 'POST' } : {}, request.to);
      try {
        await client.calls(providerCallId).update({ twiml: twiml.toString() });
      } catch (error) {
        throw carrierError(error, `transfer the call to ${request.to}`);
      }
    },

    /**
     * Calls the supervisor first, with the briefing's TwiML and the status callback (a number Twilio will not
     * call leaves the caller on the line with the assistant, who is told); then replaces the caller's TwiML with
     * the hold in the room, which ends its stream. A caller gone meanwhile cancels the supervisor's call.
     */
    async warmTransfer(providerCallId: string, request: WarmTransferRequest) {
      let supervisorCallId: string;
      try {
        const call = await client.calls.create({
          to: request.to, from: request.callerId, twiml: request.supervisorTwiml, timeout: request.ringTimeoutSeconds,
          statusCallback: request.supervisorStatusUrl, statusCallbackMethod: 'POST',
        });
        supervisorCallId = call.sid;
      } catch (error) {
        throw carrierError(error, `call the supervisor at ${request.to}`);
      }
      try {
        await client.calls(providerCallId).update({ twiml: holdTwiml(request.room, request.holdMusicUrl) });
      } catch (error) {
        await client.calls(supervisorCallId).update({ status: 'canceled' }).catch(() => undefined);
        throw carrierError(error, 'put the call on hold');
      }
      return { supervisorCallId };
    },

    async updateCall(providerCallId: string, twiml: string) {
      try {
        await client.calls(providerCallId).update({ twiml });
      } catch (error) {
        throw carrierError(error, `update the call ${providerCallId}`);
      }
    },

    // Twilio fills `price` (negative: a charge) some time after the call completes.
    async callPrice(providerCallId) {
      const call = await client.calls(providerCallId).fetch();
      if (call.price === null || call.price === undefined || call.price === '') return undefined;
      if (call.priceUnit?.toUpperCase() !== 'USD') throw new RejectedError(`Twilio priced call ${providerCallId} in ${call.priceUnit}, not USD.`);
      const micros = parseUsd(call.price);
      if (micros === undefined) throw new RejectedError(`Twilio priced call ${providerCallId} as "${call.price}", which is not an amount.`);
      return Math.abs(micros);
    },
  };
}
