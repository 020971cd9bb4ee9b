import { afterEach, describe, expect, it } from 'vitest';
import { FREE_KEYS_PAUSE_MS } from '../../src/voice/turns/keypad.ts';
import { decodeKeys } from '../support/dtmf.ts';
import { MULAW_8K, type MediaStreamClient } from '../support/media-stream-client.ts';
import { roles, say, startVoiceHarness, toolResults, UTTERANCES } from '../support/voice-harness.ts';

// The keypad on a call: the caller's keys, collected or taken as a turn, and keys the assistant presses towards
// the far end. Transfers and handovers are in voice-line-transfers.test.ts.

type Harness = Awaited<ReturnType<typeof startVoiceHarness>>;
let harness: Harness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const keypad = { type: 'collect_keypad' as const, timeoutSeconds: 1, stopKey: '#' as const };
const askForDigits = { text: 'Please type your account number, then the pound key.', calls: [{ name: 'collect_keypad', arguments: '{}' }] };

describe('the caller\'s keypad on a call', { timeout: 15_000 }, () => {
  it('collects the digits the caller types up to the stop key into the turn', async () => {
    harness = await startVoiceHarness({ settings: { waitForCustomer: true }, profile: { lineTools: [keypad] } });
    harness.llm.script(askForDigits, { text: 'Thank you, I have your account.' });
    const call = await harness.call(MULAW_8K);
    await say(call, 'hours');
    await call.client.waitFor(() => call.client.playedSound.length > 10, 5000, 'the question');
    call.client.press('1234#');
    await call.client.waitFor(() => call.turns.length === 2, 5000, 'the answer');
    expect(harness.llm.requests[0]!.tools!.map((tool) => tool.name)).toContain('collect_keypad');
    expect(toolResults(harness.llm.requests[1]!.messages)).toEqual([{ digits: '1234', ended_by: 'stop_key' }]);
    expect(roles(call)).toEqual([
      `user: ${UTTERANCES.hours.text}`, 'assistant: Please type your account number, then the pound key. Thank you, I have your account.',
    ]);
  });

  it('ends the entry once the caller has typed nothing for the timeout after the question was heard, with what was typed', async () => {
    harness = await startVoiceHarness({ settings: { waitForCustomer: true }, profile: { lineTools: [keypad] }, ttsMsPerChar: 30 });
    harness.llm.script(askForDigits, { text: 'Thank you.' });
    const call = await harness.call(MULAW_8K);
    await say(call, 'hours');
    await call.client.waitFor(() => call.client.playedSound.length > 0, 5000, 'the question');
    const asked = performance.now();
    call.client.press('98');
    await call.client.waitFor(() => harness!.llm.requests.length === 2, 8000, 'the entry to time out');
    // The question (about 1.6 s at 30 ms a character) plays out before the second of timeout starts.
    expect(performance.now() - asked).toBeGreaterThan(2000);
    expect(toolResults(harness.llm.requests[1]!.messages)).toEqual([{ digits: '98', ended_by: 'timeout' }]);
  });

  it('abandons the entry when the caller speaks over the question, and answers the words instead', async () => {
    harness = await startVoiceHarness({ settings: { waitForCustomer: true }, profile: { lineTools: [{ ...keypad, timeoutSeconds: 10 }] }, ttsMsPerChar: 30 });
    harness.llm.script(askForDigits, { text: 'Of course, what is it?' });
    const call = await harness.call(MULAW_8K);
    await say(call, 'hours');
    await call.client.waitFor(() => call.client.playedSound.length > 10, 5000, 'the question');
    await say(call, 'stop', 500);
    await call.client.waitFor(() => call.turns.length === 4, 5000, 'the answer to the interruption');
    expect(call.turns[1]).toMatchObject({ role: 'assistant', interrupted: true });
    expect(harness.llm.requests).toHaveLength(2);
    expect(toolResults(harness.llm.requests[1]!.messages)).toEqual([]);
    expect(harness.llm.requests[1]!.messages.at(-1)).toEqual({ role: 'user', content: UTTERANCES.stop.text });
    // The keys pressed now are the caller's input, not a late entry.
    call.client.press('5#');
    await call.client.waitFor(() => harness!.llm.requests.length === 3, 3000, 'the keys as a turn');
    expect(harness.llm.requests[2]!.messages.at(-1)).toEqual({ role: 'user', content: '[pressed 5#]' });
  });

  it('hands keys typed outside an entry to the model as the caller\'s turn, after a pause', async () => {
    harness = await startVoiceHarness({ settings: { waitForCustomer: true } });
    harness.llm.script({ text: 'You pressed two.' });
    const call = await harness.call(MULAW_8K);
    await call.client.waitFor(() => call.answeredAt !== undefined, 3000, 'the session');
    const pressed = performance.now();
    call.client.press('2');
    await call.client.waitFor(() => call.turns.length === 2, FREE_KEYS_PAUSE_MS + 3000, 'the answer');
    expect(performance.now() - pressed).toBeGreaterThanOrEqual(FREE_KEYS_PAUSE_MS);
    expect(roles(call)).toEqual(['user: [pressed 2]', 'assistant: You pressed two.']);
    // No line tools are offered to an assistant that has none.
    expect(harness.llm.requests[0]!.tools!.map((tool) => tool.name)).toEqual(['end_call']);
  });
});

/** What the caller heard, as one run of 16 kHz samples. */
function playedAudio(client: MediaStreamClient): Int16Array {
  const joined = new Int16Array(client.played.length * 320);
  client.played.forEach((frame, index) => joined.set(frame, index * 320));
  return joined;
}

describe('pressing keys towards the far end', { timeout: 15_000 }, () => {
  it('plays the keys\' DTMF tones over the 8 kHz line after the words before them, and answers once they have played', async () => {
    harness = await startVoiceHarness({ settings: { waitForCustomer: true }, profile: { lineTools: [{ type: 'dtmf_input', description: undefined }] } });
    harness.llm.script({ text: 'Choosing the bookings menu.', calls: [{ name: 'dtmf_input', arguments: '{"digits":"2w#"}' }] }, { text: 'Done.' });
    const call = await harness.call(MULAW_8K);
    await say(call, 'book');
    await call.client.waitFor(() => call.client.echoed.some((mark) => mark.name === 'u1.2'), 8000, 'the tones to play');
    // The model hears back only once the far end has played the tones.
    expect(harness.llm.requests).toHaveLength(1);
    await call.client.waitFor(() => call.turns.length === 2, 8000, 'the reply');
    expect(toolResults(harness.llm.requests[1]!.messages)).toEqual([{ pressed: '2w#' }]);
    // The far end heard the words, then the keys (a receiver decodes them from the mu-law line), then the answer.
    expect(decodeKeys(playedAudio(call.client), 16000)).toBe('2#');
    const tonesEnd = call.client.echoed.find((mark) => mark.name === 'u1.2')!;
    const wordsEnd = call.client.echoed.find((mark) => mark.name === 'u1.1')!;
    expect(tonesEnd.at - wordsEnd.at).toBeGreaterThanOrEqual(680);
    expect(roles(call)).toEqual([`user: ${UTTERANCES.book.text}`, 'assistant: Choosing the bookings menu. Done.']);
  });

  it('tells the model when the keys are not a keypad\'s, and plays nothing', async () => {
    harness = await startVoiceHarness({ settings: { waitForCustomer: true }, profile: { lineTools: [{ type: 'dtmf_input', description: undefined }] } });
    harness.llm.script({ calls: [{ name: 'dtmf_input', arguments: '{"digits":"two"}' }] }, { text: 'Sorry.' });
    const call = await harness.call(MULAW_8K);
    await say(call, 'book');
    await call.client.waitFor(() => call.turns.length === 2, 8000, 'the reply');
    expect(toolResults(harness.llm.requests[1]!.messages)).toEqual([{ error: expect.stringMatching(/digits must be/) }]);
    expect(decodeKeys(playedAudio(call.client), 16000)).toBe('');
  });
});
