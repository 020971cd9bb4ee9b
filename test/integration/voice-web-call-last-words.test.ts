import { describe, expect, it } from 'vitest';
import { speechInstalled, speechSkipReason, spokenPcm, toVoiceEnd } from '../support/speech.ts';
import { webCallTestbed } from '../support/web-call.ts';

/**
 * A caller who says a line and hangs up the moment their voice ends, before the pause that would end their
 * turn: the words are their last turn in the stored call (the offline stack: Silero VAD, Whisper tiny.en),
 * not answered, and the call is charged once.
 */
describe.skipIf(!speechInstalled)(`the caller's last words on a web call${speechInstalled ? '' : ` (${speechSkipReason})`}`, () => {
  const bed = webCallTestbed(() => ({ reply: 'Of course.' }), { warmUp: true });

  it('stores the line the caller said as they hung up as their last turn, unanswered, and charges the call once', async () => {
    const { llm } = bed;
    const { callId, caller } = await bed.call(await bed.assistant({ wait_for_customer: true, post_call_evaluation: false }));
    const line = toVoiceEnd(await spokenPcm('Please cancel my order.', { silenceMs: 300 }));
    const requestsBefore = llm.requests.length;

    await caller.say(line);
    caller.stop();
    expect((await caller.closed).code).toBe(1000);

    const { result, call } = await bed.settled(callId);
    expect(result).toMatchObject({ status: 'ended_by_customer' });
    expect(call.transcript).toMatch(/^Customer: .*cancel.*order.*$/i);
    expect(call.turns).toEqual([expect.objectContaining({ role: 'user', text: expect.stringMatching(/cancel.*order/i), interrupted: false })]);
    expect(llm.requests.length, 'no reply to the last words').toBe(requestsBefore);
    const charges = await bed.charges(callId);
    expect(charges).toHaveLength(1);
    expect(Number(charges[0].amountMicros)).toBe(-Number(call.totalCostMicros));
  }, 60_000);
});
