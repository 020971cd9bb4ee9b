import { afterEach, describe, expect, it } from 'vitest';
import type { PhoneLine } from '../../src/voice/line.ts';
import type { AssistantSetup } from '../../src/voice/run.ts';
import { DEFAULT_VOICE_SETTINGS } from '../../src/voice/settings.ts';
import { MULAW_8K } from '../support/media-stream-client.ts';
import { roles, say, startVoiceHarness, testProfile, toolResults, UTTERANCES, type HarnessCall } from '../support/voice-harness.ts';

// Handing a call on: transferring a phone call to a number or to a supervisor, and over to another assistant.
// The keypad is in voice-line-keypad.test.ts.

type Harness = Awaited<ReturnType<typeof startVoiceHarness>>;
let harness: Harness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/**
 * A carrier as a phone call's session sees it: a transfer it takes ends the media stream (as Twilio does once
 * the call's TwiML is replaced), one it refuses throws.
 */
function fakeCarrier(options: { refuse?: string; refuseNumber?: string } = {}) {
  const transfers: { to: string; whisper: string | undefined; at: number }[] = [];
  const warmTransfers: (Parameters<PhoneLine['warmTransfer']>[0] & { at: number })[] = [];
  let call: HarnessCall | undefined;
  const phone: PhoneLine = {
    checkTransfer: (phoneNumber) => (phoneNumber === options.refuseNumber ? Promise.reject(new Error('Calls to GB numbers are not allowed for this account.')) : Promise.resolve()),
    transfer: (request) => {
      transfers.push({ ...request, at: performance.now() });
      if (options.refuse) return Promise.reject(new Error(options.refuse));
      call?.client.stop();
      return Promise.resolve();
    },
    warmTransfer: (request) => {
      warmTransfers.push({ ...request, at: performance.now() });
      if (options.refuse) return Promise.reject(new Error(options.refuse));
      call?.client.stop();
      return Promise.resolve();
    },
  };
  return { phone, transfers, warmTransfers, attach: (attached: HarnessCall) => { call = attached; } };
}

const transferTo = (overrides: Partial<{ phoneNumber: string; custom: boolean; warmTransfer: boolean; warmTransferMessage: string }> = {}) => ({
  type: 'call_transfer' as const, phoneNumber: '+14155550142', custom: false, description: undefined, warmTransfer: false, warmTransferMessage: undefined, ...overrides,
});

describe('transferring a phone call to a number', { timeout: 15_000 }, () => {
  it('says the closing words, then has the carrier connect the caller, and ends as transferred', async () => {
    const carrier = fakeCarrier();
    harness = await startVoiceHarness({ settings: { waitForCustomer: true }, profile: { lineTools: [transferTo()] }, phone: carrier.phone });
    harness.llm.script({ text: 'Let me connect you with a colleague.', calls: [{ name: 'call_transfer', arguments: '{}' }] }, { text: 'One moment, please.' });
    const call = await harness.call(MULAW_8K);
    carrier.attach(call);
    await say(call, 'book');
    expect(await call.ended).toBe('transferred');
    expect(carrier.transfers).toEqual([{ to: '+14155550142', whisper: undefined, at: expect.any(Number) }]);
    // Every word was heard before the line was handed over.
    expect(roles(call)).toEqual([`user: ${UTTERANCES.book.text}`, 'assistant: Let me connect you with a colleague. One moment, please.']);
    expect(call.client.echoed.at(-1)!.at).toBeLessThan(carrier.transfers[0]!.at);
    expect(toolResults(harness.llm.requests[1]!.messages)).toEqual([{ transferring: true }]);
  });

  it('tells the person answering a warm transfer its message first', async () => {
    const carrier = fakeCarrier();
    harness = await startVoiceHarness({
      settings: { waitForCustomer: true }, phone: carrier.phone,
      profile: { lineTools: [transferTo({ warmTransfer: true, warmTransferMessage: 'A caller wants to book a table for two.' })] },
    });
    harness.llm.script({ calls: [{ name: 'call_transfer', arguments: '{}' }] }, { text: 'Connecting you now.' });
    const call = await harness.call(MULAW_8K);
    carrier.attach(call);
    await say(call, 'book');
    expect(await call.ended).toBe('transferred');
    expect(carrier.transfers).toMatchObject([{ to: '+14155550142', whisper: 'A caller wants to book a table for two.' }]);
  });

  it('transfers to the number the model picks with custom, refusing one the account may not call', async () => {
    const carrier = fakeCarrier({ refuseNumber: '+442079460000' });
    harness = await startVoiceHarness({ settings: { waitForCustomer: true }, profile: { lineTools: [transferTo({ custom: true })] }, phone: carrier.phone });
    harness.llm.script(
      { calls: [{ name: 'call_transfer', arguments: '{"phone_number":"+44 20 7946 0000"}' }] },
      { text: 'I cannot call that number.', calls: [{ name: 'call_transfer', arguments: '{"phone_number":"(415) 555-0199"}' }] },
      { calls: [{ name: 'call_transfer', arguments: '{"phone_number":"+1 415 555 0199"}' }] },
      { text: 'Transferring you.' },
    );
    const call = await harness.call(MULAW_8K);
    carrier.attach(call);
    await say(call, 'book');
    expect(await call.ended).toBe('transferred');
    const results = harness.llm.requests.slice(1).map((request) => toolResults(request.messages).at(-1));
    expect(results).toEqual([
      { error: 'Calls to GB numbers are not allowed for this account.' },
      { error: expect.stringMatching(/E\.164/) },
      { transferring: true },
    ]);
    expect(harness.llm.requests[0]!.tools!.find((tool) => tool.name === 'call_transfer')!.parameters).toMatchObject({ required: ['phone_number'] });
    expect(carrier.transfers).toMatchObject([{ to: '+14155550199' }]);
  });

  it('goes on with the call when the carrier cannot transfer it, the model telling the caller', async () => {
    const carrier = fakeCarrier({ refuse: 'The carrier refused the transfer' });
    harness = await startVoiceHarness({ settings: { waitForCustomer: true }, profile: { lineTools: [transferTo()] }, phone: carrier.phone });
    harness.llm.script({ calls: [{ name: 'call_transfer', arguments: '{}' }] }, { text: 'Transferring you.' }, { text: 'Sorry, I could not connect you.' });
    const call = await harness.call(MULAW_8K);
    carrier.attach(call);
    await say(call, 'book');
    await call.client.waitFor(() => call.turns.length === 3, 5000, 'the apology');
    expect(roles(call)).toEqual([`user: ${UTTERANCES.book.text}`, 'assistant: Transferring you.', 'assistant: Sorry, I could not connect you.']);
    expect(harness.llm.requests[2]!.messages.at(-1)!.content).toBe('(The transfer to +14155550142 did not go through: The carrier refused the transfer. Tell the caller, and go on helping them.)');
    expect((await call.running).state()).toBe('listening');
    call.client.stop();
    expect(await call.ended).toBe('customer_hangup');
  });

  it('is not offered on a call without a carrier (a web call)', async () => {
    harness = await startVoiceHarness({ settings: { waitForCustomer: true }, profile: { lineTools: [transferTo()] } });
    harness.llm.script({ text: 'Hello.' });
    const call = await harness.call(MULAW_8K);
    await say(call, 'book');
    await call.client.waitFor(() => call.turns.length === 2, 5000, 'the answer');
    expect(harness.llm.requests[0]!.tools!.map((tool) => tool.name)).toEqual(['end_call']);
  });
});

describe('a warm transfer to a supervisor', { timeout: 15_000 }, () => {
  const supervisor = {
    type: 'warm_call_transfer' as const, description: 'Get the supervisor.', supervisorPhone: '+14155550142', outboundPhoneId: 3, callerIdMode: 'outbound_number' as const,
    customCallerId: undefined, holdMusicVolume: 80, holdMessage: 'Please hold while I connect you.', summaryInstructions: 'Say who calls and why.',
    briefingInitialMessage: 'Hello, a caller for you.', connectedMessage: 'You are now connected.',
  };

  it('says the closing words and the hold message, has the model write the summary, then hands the caller to the carrier', async () => {
    const carrier = fakeCarrier();
    harness = await startVoiceHarness({ settings: { waitForCustomer: true }, profile: { lineTools: [supervisor] }, phone: carrier.phone });
    harness.llm.script({ calls: [{ name: 'warm_call_transfer', arguments: '{}' }] }, { text: 'Let me get my supervisor.' }, { text: 'The caller wants to book a table.' });
    const call = await harness.call(MULAW_8K);
    carrier.attach(call);
    await say(call, 'book');
    expect(await call.ended).toBe('transferred');
    expect(carrier.warmTransfers).toEqual([{
      transfer: expect.objectContaining({ supervisorPhone: '+14155550142', holdMusicVolume: 80 }), briefing: 'Hello, a caller for you. The caller wants to book a table.', summarySource: 'model',
      language: 'en-US', at: expect.any(Number),
    }]);
    expect(roles(call)).toEqual([`user: ${UTTERANCES.book.text}`, 'assistant: Let me get my supervisor.', 'assistant: Please hold while I connect you.']);
    // The hold message was heard before the carrier took the call; the summary was asked with the instructions.
    expect(call.client.echoed.at(-1)!.at).toBeLessThan(carrier.warmTransfers[0]!.at);
    expect(harness.llm.requests[2]!.messages[0]!.content).toMatch(/^Say who calls and why\.\nWrite two or three short spoken sentences, to be read/);
  });

  it("has the summary written in the call's language, and the last turns said in it when the model writes none", async () => {
    const carrier = fakeCarrier();
    harness = await startVoiceHarness({ settings: { waitForCustomer: true, ttsLanguage: 'de-DE' }, profile: { lineTools: [supervisor] }, phone: carrier.phone });
    harness.llm.script({ calls: [{ name: 'warm_call_transfer', arguments: '{}' }] }, { text: 'Einen Moment.' }, { text: '' });
    const call = await harness.call(MULAW_8K);
    carrier.attach(call);
    await say(call, 'book');
    expect(await call.ended).toBe('transferred');
    expect(harness.llm.requests[2]!.messages[0]!.content).toMatch(/^Say who calls and why\.\nWrite two or three short spoken sentences in German, to be read/);
    expect(carrier.warmTransfers).toEqual([expect.objectContaining({
      briefing: `Hello, a caller for you. Zuletzt wurde gesagt: der Anrufer sagte: "${UTTERANCES.book.text}"; ich sagte: "Einen Moment.".`,
      summarySource: 'last_turns', language: 'de-DE',
    })]);
  });

  it('goes on with the call when the carrier cannot hold it for the supervisor, the model telling the caller', async () => {
    const carrier = fakeCarrier({ refuse: 'Twilio would not call the supervisor' });
    harness = await startVoiceHarness({ settings: { waitForCustomer: true }, profile: { lineTools: [{ ...supervisor, holdMessage: '' }] }, phone: carrier.phone });
    harness.llm.script({ calls: [{ name: 'warm_call_transfer', arguments: '{}' }] }, { text: 'Transferring you.' }, { text: 'A caller.' }, { text: 'Sorry, nobody is free.' });
    const call = await harness.call(MULAW_8K);
    carrier.attach(call);
    await say(call, 'book');
    await call.client.waitFor(() => call.turns.length === 3, 5000, 'the apology');
    expect(roles(call)).toEqual([`user: ${UTTERANCES.book.text}`, 'assistant: Transferring you.', 'assistant: Sorry, nobody is free.']);
    expect(harness.llm.requests[3]!.messages.at(-1)!.content).toBe('(The transfer to a colleague did not go through: Twilio would not call the supervisor. Tell the caller, and go on helping them.)');
    call.client.stop();
    expect(await call.ended).toBe('customer_hangup');
  });
});

/** The owner's other assistant, Billing, with a voice, prompt and tools of its own; `refuse` makes it unavailable. */
function otherAssistants(options: { refuseCheck?: string; refuseLoad?: string } = {}) {
  const loaded: number[] = [];
  const checked: number[] = [];
  const billing: AssistantSetup = {
    profile: testProfile({ assistantId: 2, name: 'Billing', systemPrompt: 'You handle invoices for {{business}}.', initialMessage: 'Billing here, how can I help, {{name}}?' }),
    settings: { ...DEFAULT_VOICE_SETTINGS, voiceId: 'billing-voice', endpointSensitivity: 5, reengagementMs: 60_000, maxSilenceMs: 120_000 },
    ports: { searchKnowledge: () => Promise.resolve([]), fetch: () => Promise.reject(new Error('no fetch in tests')), now: () => performance.now() },
    modelName: 'billing-model',
  };
  return {
    loaded,
    checked,
    assistants: {
      check: (assistantId: number) => {
        checked.push(assistantId);
        return options.refuseCheck ? Promise.reject(new Error(options.refuseCheck)) : Promise.resolve();
      },
      load: (assistantId: number) => {
        loaded.push(assistantId);
        return options.refuseLoad ? Promise.reject(new Error(options.refuseLoad)) : Promise.resolve(billing);
      },
    },
  };
}

const toBilling = (overrides: Partial<{ messageBeforeTransfer: string; speakTransferGreeting: boolean }> = {}) => ({
  type: 'assistant_transfer' as const, assistantId: 2, assistantName: 'Billing', description: undefined, messageBeforeTransfer: undefined, speakTransferGreeting: true, ...overrides,
});

describe('handing a call over to another assistant', { timeout: 15_000 }, () => {
  it('says the message, then the other assistant greets in its own voice and answers with its prompt and the history', async () => {
    const other = otherAssistants();
    harness = await startVoiceHarness({
      settings: { waitForCustomer: true }, assistants: other.assistants,
      profile: { lineTools: [toBilling({ messageBeforeTransfer: 'Let me pass you to Billing.' })] },
    });
    harness.llm.script({ calls: [{ name: 'assistant_transfer', arguments: '{}' }] }, { text: 'Of course.' }, { text: 'We open at nine.' });
    const call = await harness.call(MULAW_8K);
    await say(call, 'book');
    await call.client.waitFor(() => call.turns.length === 5, 8000, 'the greeting of the other assistant');
    expect(roles(call)).toEqual([
      `user: ${UTTERANCES.book.text}`, 'assistant: Of course.', 'assistant: Let me pass you to Billing.', 'handover: Billing', 'assistant: Billing here, how can I help, Anna?',
    ]);
    expect(other.checked).toEqual([2]);
    expect(other.loaded).toEqual([2]);
    expect(harness.tts.requests.map((request) => request.voice)).toEqual(['tone-voice', 'tone-voice', 'billing-voice']);
    expect(toolResults(harness.llm.requests[1]!.messages)).toEqual([{ transferring_to: 'Billing' }]);

    await say(call, 'hours');
    await call.client.waitFor(() => call.turns.length === 7, 5000, 'the answer of the other assistant');
    const asked = harness.llm.requests[2]!;
    expect(asked.model).toBe('billing-model');
    expect(asked.messages[0]).toEqual({ role: 'system', content: 'You handle invoices for Trattoria Roma.' });
    expect(asked.messages.slice(1).map((message) => `${message.role}: ${String(message.content)}`)).toEqual([
      `user: ${UTTERANCES.book.text}`, 'assistant: Of course.', 'assistant: Let me pass you to Billing.', 'assistant: Billing here, how can I help, Anna?', `user: ${UTTERANCES.hours.text}`,
    ]);
    // The other assistant has its own tools: no transfer back unless it has one.
    expect(asked.tools!.map((tool) => tool.name)).toEqual(['end_call']);
    expect(call.turns[6]).toMatchObject({ role: 'assistant', text: 'We open at nine.' });
  });

  it('waits for the caller without the greeting when the transfer speaks none', async () => {
    const other = otherAssistants();
    harness = await startVoiceHarness({ settings: { waitForCustomer: true }, assistants: other.assistants, profile: { lineTools: [toBilling({ speakTransferGreeting: false })] } });
    harness.llm.script({ calls: [{ name: 'assistant_transfer', arguments: '{}' }] }, { text: 'Transferring you.' }, { text: 'Billing speaking.' });
    const call = await harness.call(MULAW_8K);
    await say(call, 'book');
    await call.client.waitFor(() => call.turns.length === 3, 5000, 'the handover');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(roles(call)).toEqual([`user: ${UTTERANCES.book.text}`, 'assistant: Transferring you.', 'handover: Billing']);
    await say(call, 'hours');
    await call.client.waitFor(() => call.turns.length === 5, 5000, 'the answer');
    expect(harness.llm.requests[2]!.model).toBe('billing-model');
  });

  it('tells the model when the other assistant cannot take the call, before or at the handover, and goes on itself', async () => {
    const unavailable = otherAssistants({ refuseCheck: 'That assistant is not available any more.' });
    harness = await startVoiceHarness({ settings: { waitForCustomer: true }, assistants: unavailable.assistants, profile: { lineTools: [toBilling()] } });
    harness.llm.script({ calls: [{ name: 'assistant_transfer', arguments: '{}' }] }, { text: 'I can help you myself.' });
    let call = await harness.call(MULAW_8K);
    await say(call, 'book');
    await call.client.waitFor(() => call.turns.length === 2, 5000, 'the answer');
    expect(toolResults(harness.llm.requests[1]!.messages)).toEqual([{ error: 'That assistant is not available any more.' }]);
    expect(unavailable.loaded).toEqual([]);
    await harness.close();

    const failing = otherAssistants({ refuseLoad: 'The database is away.' });
    harness = await startVoiceHarness({ settings: { waitForCustomer: true }, assistants: failing.assistants, profile: { lineTools: [toBilling()] } });
    harness.llm.script({ calls: [{ name: 'assistant_transfer', arguments: '{}' }] }, { text: 'Transferring you.' }, { text: 'Sorry, I will help you myself.' });
    call = await harness.call(MULAW_8K);
    await say(call, 'book');
    await call.client.waitFor(() => call.turns.length === 3, 5000, 'the apology');
    expect(roles(call)).toEqual([`user: ${UTTERANCES.book.text}`, 'assistant: Transferring you.', 'assistant: Sorry, I will help you myself.']);
    expect(harness.llm.requests[2]!.messages.at(-1)!.content).toBe('(The transfer to the other assistant did not go through: The database is away. Tell the caller, and go on helping them.)');
    expect(harness.llm.requests[2]!.model).toBe('test-model');
  });
});
