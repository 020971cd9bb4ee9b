import { afterEach, describe, expect, it } from 'vitest';
import { MULAW_8K } from '../support/media-stream-client.ts';
import { tone } from '../support/speech-doubles.ts';
import { roles, say, startVoiceHarness, UTTERANCES, type HarnessCall } from '../support/voice-harness.ts';

type Harness = Awaited<ReturnType<typeof startVoiceHarness>>;
let harness: Harness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** The answering machine's tone, as the sandbox carrier's box plays it. */
const beep = () => tone(1000, 400);

/** A voicemail box: its greeting (the recognizer double hears voicemail words in its pitch), a pause, then its beep. Resolves when the beep has been sent. */
async function voicemailBox(call: HarnessCall): Promise<{ greetingAt: number; beepEndedAt: number }> {
  const greetingAt = await say(call, 'voicemail', 1500);
  await call.client.say(new Int16Array(16000 * 0.6));
  const beepAt = await call.client.say(beep());
  return { greetingAt, beepEndedAt: beepAt + 400 };
}

describe('answering machines on an outbound call', { timeout: 15_000 }, () => {
  it('holds its opening while a voicemail greeting plays, then leaves its message after the beep and hangs up', async () => {
    harness = await startVoiceHarness({ screen: true, settings: { endCallOnVoicemail: false, voicemailMessage: 'Hi {{name}}, this is Trattoria Roma. Please call us back.' } });
    const call = await harness.call(MULAW_8K);
    const box = await voicemailBox(call);
    expect(await call.ended).toBe('voicemail');
    expect(call.verdicts).toEqual([expect.objectContaining({ answeredBy: 'machine', cause: 'phrase' })]);
    // The greeting cut the opening short, was heard, and was never answered: the model was not asked.
    expect(roles(call).slice(1)).toEqual([`user: ${UTTERANCES.voicemail.text}`, 'assistant: Hi Anna, this is Trattoria Roma. Please call us back.']);
    expect(call.turns[0]).toMatchObject({ role: 'assistant', interrupted: true });
    expect(harness.llm.requests).toHaveLength(0);
    // Nothing was played from just after the greeting began until the beep ended; the message came after it.
    const duringGreeting = call.client.playedSound.filter((at) => at > box.greetingAt + 500 && at < box.beepEndedAt);
    expect(duringGreeting).toEqual([]);
    expect(call.client.playedSound.filter((at) => at >= box.beepEndedAt).length).toBeGreaterThan(20);
    expect(call.turns.at(-1)).toMatchObject({ interrupted: false });
    expect((await call.client.closed).code).toBe(1000);
  });

  it('leaves its opening line when it has no voicemail message', async () => {
    harness = await startVoiceHarness({ screen: true, settings: { endCallOnVoicemail: false } });
    const call = await harness.call(MULAW_8K);
    await voicemailBox(call);
    expect(await call.ended).toBe('voicemail');
    expect(call.turns.at(-1)).toMatchObject({ role: 'assistant', text: 'Hello Anna, how can I help?', interrupted: false });
  });

  it('hangs up as soon as it hears a voicemail greeting when it ends calls on voicemail', async () => {
    harness = await startVoiceHarness({ screen: true, settings: { endCallOnVoicemail: true } });
    const call = await harness.call(MULAW_8K);
    const greetingAt = await say(call, 'voicemail', 1500);
    expect(await call.ended).toBe('voicemail');
    expect(call.verdicts).toEqual([expect.objectContaining({ answeredBy: 'machine' })]);
    // Judged on the greeting's words, within a moment of its end.
    expect(performance.now() - greetingAt).toBeLessThan(2500);
    expect(call.turns.filter((turn) => turn.role === 'assistant')).toHaveLength(1);
  });

  it('judges a beep alone a machine', async () => {
    harness = await startVoiceHarness({ screen: true });
    const beeped = await harness.call(MULAW_8K);
    // The call ends while the beep plays: the caller's `say` never finishes.
    void beeped.client.say(beep());
    expect(await beeped.ended).toBe('voicemail');
    expect(beeped.verdicts).toEqual([expect.objectContaining({ answeredBy: 'machine', cause: 'beep' })]);
  });

  it('judges a long greeting without a word it knows a machine', async () => {
    harness = await startVoiceHarness({ screen: true });
    const monologue = await harness.call(MULAW_8K);
    const started = performance.now();
    void monologue.client.say(tone(230, 5000));
    expect(await monologue.ended).toBe('voicemail');
    expect(monologue.verdicts).toEqual([expect.objectContaining({ answeredBy: 'machine', cause: 'long_greeting' })]);
    // Three seconds of it are enough.
    expect(performance.now() - started).toBeLessThan(4000);
  });

  it('calls a person who answers the opening line human, and talks with them as usual', async () => {
    harness = await startVoiceHarness({ screen: true });
    harness.llm.script({ text: 'We are open from noon to eleven.' });
    const call = await harness.call(MULAW_8K);
    await call.client.waitFor(() => call.turns.length === 1, 3000, 'the opening line');
    await say(call, 'hours');
    await call.client.waitFor(() => call.turns.length === 3, 5000, 'the reply');
    expect(call.verdicts).toEqual([expect.objectContaining({ answeredBy: 'human', cause: 'reply' })]);
    expect(roles(call).slice(1)).toEqual([`user: ${UTTERANCES.hours.text}`, 'assistant: We are open from noon to eleven.']);
    // A person's words later on are a conversation, not a greeting.
    harness.llm.script({ text: 'Of course.' });
    await say(call, 'voicemail', 600);
    await call.client.waitFor(() => call.turns.length === 5, 5000, 'the second reply');
    expect(call.verdicts).toHaveLength(1);
  });

  it('does not judge a call it is not told to (a web call): a greeting is a turn like any other', async () => {
    harness = await startVoiceHarness();
    harness.llm.script({ text: 'Sure, I will leave you a message.' });
    const call = await harness.call(MULAW_8K);
    await say(call, 'voicemail', 1500);
    await call.client.waitFor(() => call.turns.some((turn) => turn.text === 'Sure, I will leave you a message.'), 5000, 'the reply');
    expect(call.verdicts).toEqual([]);
  });
});
