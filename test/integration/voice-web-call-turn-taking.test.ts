import { describe, expect, it } from 'vitest';
import { GOODBYES, REENGAGE_INSTRUCTION } from '../../src/voice/session.ts';
import type { CallTurn } from '../../src/voice/hooks.ts';
import { incompleteSilenceMs } from '../../src/voice/turns/turn-policy.ts';
import type { ChatCompletionRequest, FakeTurn } from '../fakes/llm-server.ts';
import { fromVoiceOnset, speechInstalled, speechSkipReason, spokenPcm, toVoiceEnd } from '../support/speech.ts';
import { transcriptLines, transcriptOf, webCallTestbed } from '../support/web-call.ts';

/**
 * Turn-taking on the embedded default speech stack (Silero VAD, Whisper tiny.en, Smart Turn, the catalog's
 * offline voice) through the media gateway, with a scripted caller speaking espeak-ng lines and the fake language
 * model: the caller barging in on a reply, a caller pausing mid-number, a short answer, the call's time limit,
 * and the assistant re-engaging a silent caller. The timers are seconds, written to the assistant's row below the API's minimums (20 s for
 * max_call_duration, 7 s for re_engagement_interval) so the file runs in seconds.
 */
describe.skipIf(!speechInstalled)(`turn-taking on a web call over the offline speech stack${speechInstalled ? '' : ` (${speechSkipReason})`}`, () => {
  const MENU = 'Today we have a tomato soup with fresh basil. Then there is a risotto with wild mushrooms and parmesan. '
    + 'We also have a grilled sea bass with lemon and capers. For dessert there is a chocolate cake and a lemon tart.';

  /** An assistant that waits for the caller to speak first, and whose calls are not evaluated. */
  const listening = { wait_for_customer: true, post_call_evaluation: false };

  const lastUserText = (request: ChatCompletionRequest) =>
    request.messages.filter((message) => message.role === 'user').at(-1)?.content?.toLowerCase() ?? '';

  const bed = webCallTestbed((request): FakeTurn => {
    const said = lastUserText(request);
    if (request.tool_choice) return { toolCalls: [{ name: 'record_call_evaluation', arguments: { status: false, summary: 'The caller asked about the menu.' } }] };
    // Slow enough that the model is still answering when the caller barges in.
    // Whisper tiny.en has heard "on the menu today" as "among you today": either word asks for the menu.
    if (/menu|today/.test(said)) return { reply: MENU, pieceDelayMs: 60 };
    if (said === REENGAGE_INSTRUCTION.toLowerCase()) return { reply: 'Are you still there?' };
    if (/question|hold/.test(said)) return { reply: 'Of course. What would you like to know?' };
    if (/table/.test(said)) return { reply: 'Certainly. For what time?' };
    if (/card|number/.test(said)) return { reply: 'Thank you, I have your card number.' };
    if (/^(yes|yeah)[.!]?$/.test(said)) return { reply: 'Great, then it is booked.' };
    return { reply: 'Good. How can I help you?' };
  }, { warmUp: true });

  it('stops speaking at once when the caller barges in, clears the audio, aborts the model and keeps only what was heard', async () => {
    const assistantId = await bed.assistant(listening);
    const requestsBefore = bed.llm.requests.length;
    const { callId, caller } = await bed.call(assistantId);
    const question = await spokenPcm('What is on the menu today?', { silenceMs: 200 });
    const interruption = fromVoiceOnset(await spokenPcm('Hold on I have a question'));

    const heardBefore = caller.playedSound.length;
    await caller.say(question);
    // Half a second of the reply played: the assistant is mid-sentence, the model still streaming.
    await caller.waitFor(() => caller.playedSound.length > heardBefore + 25, 20_000, 'the reply to be playing');
    const aborted = bed.llm.nextAbort();
    const onset = await caller.say(interruption);
    // The line ends on its last voiced frame (the caller's microphone sends silence after it): from there a reply may come.
    const saidUntil = performance.now();

    const clear = caller.received.find((message) => message.event === 'clear' && message.at > onset);
    expect(clear, 'a clear after the caller began to speak').toBeDefined();
    // The assistant stops while the caller is still talking, not at the end of the caller's turn. How soon
    // (issue 14 asks 200 ms) is a figure of `npm run bench:voice-latency`, not a timing held inside npm test.
    expect(clear!.at, 'the clear, before the caller has finished the interruption').toBeLessThan(saidUntil);
    expect(caller.received.filter((message) => message.event === 'media' && message.at > clear!.at && message.at < saidUntil)).toEqual([]);
    expect(lastUserText(await aborted)).toMatch(/menu|today/);

    const lines = await transcriptOf(caller, 4);
    expect(lines).toEqual([
      expect.stringMatching(/^user: .*(menu|today)/i),
      expect.stringMatching(/^assistant: /),
      // Whisper hears the interruption's start, cut by the onset, as "Hold on I have a question" or "Hold on I can't wait".
      expect.stringMatching(/^user: hold on/i),
      'assistant: Of course. What would you like to know?',
    ]);
    caller.stop();
    expect((await caller.closed).code).toBe(1000);

    const { result, call } = await bed.settled(callId);
    expect(result).toMatchObject({ status: 'ended_by_customer', reason: 'customer_hangup' });
    const cut = call.turns[1] as { role: string; text: string; interrupted: boolean };
    expect(cut).toMatchObject({ role: 'assistant', interrupted: true });
    // What the caller heard of the reply: its beginning, and well short of all of it.
    expect(cut.text.length).toBeGreaterThan(0);
    expect(MENU.startsWith(cut.text)).toBe(true);
    expect(cut.text.length).toBeLessThan(MENU.length / 2);
    expect(call.transcript.split('\n')[1]).toBe(`AI: ${cut.text}`);
    // The next request carries the cut reply as the model's last words, not the whole answer.
    const next = bed.llm.requests.slice(requestsBefore).find((request) => /question|hold/i.test(lastUserText(request)))!;
    expect(next.messages.at(-2)).toEqual({ role: 'assistant', content: cut.text });
  }, 60_000);

  it('hears a caller who speaks at once, while the call is still being set up', async () => {
    const assistantId = await bed.assistant(listening);
    const { callId, caller } = await bed.call(assistantId);
    // Said from the first frame after start: the engine is still loading the call (it waits for the call's
    // time limit from the workflow) and must not lose the first words.
    await caller.say(fromVoiceOnset(await spokenPcm('Good morning I would like to book a table for two', { silenceMs: 200 })));
    expect(await transcriptOf(caller, 2)).toEqual([expect.stringMatching(/^user: good morning.*table for two/i), 'assistant: Certainly. For what time?']);
    caller.stop();
    expect((await caller.closed).code).toBe(1000);
    await bed.settled(callId);
  }, 60_000);

  it('ends the call politely at its time limit, cutting off what the assistant was saying', async () => {
    const assistantId = await bed.assistant(listening);
    await bed.platform.database.knex('assistants').where({ id: assistantId }).update({ maxDuration: 5 });
    const { callId, caller } = await bed.call(assistantId);
    await caller.say(await spokenPcm('What is on the menu today?', { silenceMs: 200 }));

    const closed = await caller.closed;
    expect(closed.code).toBe(1000);
    const lines = transcriptLines(caller);
    expect(lines).toEqual([expect.stringMatching(/^user: .*(menu|today)/i), expect.stringMatching(/^assistant: /), `assistant: ${GOODBYES.max_duration}`]);
    // The goodbye (the call's second utterance, two sentences) played to its end before the socket closed.
    expect(caller.echoed.at(-1)?.name).toBe('u2.2');

    const { result, call } = await bed.settled(callId);
    expect(result).toMatchObject({ status: 'completed', reason: 'max_duration' });
    expect(call.status).toBe('completed');
    const [, cut, goodbye] = call.turns as CallTurn[];
    expect(cut!.interrupted).toBe(true);
    expect(MENU.startsWith(cut!.text)).toBe(true);
    expect(cut!.text.length).toBeLessThan(MENU.length);
    expect(goodbye).toMatchObject({ text: GOODBYES.max_duration, interrupted: false });
    // The goodbye starts at the limit (5 s after the answer), give or take the cut reply's settling.
    expect(goodbye!.start_offset_ms).toBeGreaterThanOrEqual(5000);
    expect(goodbye!.start_offset_ms).toBeLessThan(6000);
    expect(call.duration).toBeGreaterThanOrEqual(6);
    expect(call.duration).toBeLessThanOrEqual(13);
    // Billed no further than the call's limit: the goodbye said past it is free.
    expect(call.maxSeconds).toBe(5);
    expect(Number(call.totalCostMicros)).toBe(Math.ceil((call.maxSeconds * Number(call.pricePerMinuteMicros)) / 60));
  }, 60_000);

  // Tried again once: on a starved machine (the whole suite on two cores) the recognizer and the turn model may
  // lag the caller, and a pause inside a thought taken for the end of the turn is a figure bench:turn-taking
  // counts (issue 29); what this asserts holds whenever the speech stack keeps up.
  it('answers a caller who pauses mid-number once, after the whole number, and the draft of the fragment leaves no trace', { retry: 1, timeout: 60_000 }, async () => {
    const assistantId = await bed.assistant(listening);
    const requestsBefore = bed.llm.requests.length;
    const { callId, caller } = await bed.call(assistantId);
    // A number read in two groups, with a pause of 700 ms from the last sound of one to the first of the next,
    // as people read numbers (espeak-ng's own silence at a comma would lengthen it).
    const first = toVoiceEnd(await spokenPcm('My card number is four four five six,'));
    const second = fromVoiceOnset(await spokenPcm('seven eight nine zero.'));
    const pause = new Int16Array((700 * 16000) / 1000);
    const said = new Int16Array(first.length + pause.length + second.length);
    said.set(first, 0);
    said.set(second, first.length + pause.length);
    await caller.say(said);

    const lines = await transcriptOf(caller, 2);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(transcriptLines(caller)).toEqual(lines);
    expect(lines).toEqual([expect.stringMatching(/^user: .*(4\s*4\s*5\s*6|four four).*(7|seven)/i), 'assistant: Thank you, I have your card number.']);
    // The reply the caller heard was asked with the whole number; a draft of a part of it alone went nowhere.
    const answered = bed.llm.requests.slice(requestsBefore).filter((request) => /7|seven/.test(lastUserText(request)));
    expect(answered.length).toBeGreaterThanOrEqual(1);
    caller.stop();
    expect((await caller.closed).code).toBe(1000);

    const { call } = await bed.settled(callId);
    expect((call.turns as CallTurn[]).map((turn) => turn.role)).toEqual(['user', 'assistant']);
    expect(call.transcript.split('\n')).toHaveLength(2);
    expect((call.turns as CallTurn[])[1]!.metrics.preemptive).toBe(1);
    // One charge, for the call's seconds: a draft costs nothing.
    const charges = await bed.charges(callId);
    expect(charges).toHaveLength(1);
    expect(Number(charges[0].amountMicros)).toBe(-Number(call.totalCostMicros));
  });

  // Tried again once, as the one above: on a starved machine the turn may end before the turn model has scored
  // its pause (once, in a full run at load average 8, the turn's metrics had no score).
  it('answers a short "Yes." after a short silence, with the reply drafted at the pause', { retry: 1, timeout: 60_000 }, async () => {
    const assistantId = await bed.assistant(listening);
    const { callId, caller } = await bed.call(assistantId);
    await caller.say(await spokenPcm('Yes.', { silenceMs: 200 }));
    expect(await transcriptOf(caller, 2)).toEqual([expect.stringMatching(/^user: (yes|yeah)/i), 'assistant: Great, then it is booked.']);
    caller.stop();
    const { call } = await bed.settled(callId);
    const { metrics } = (call.turns as CallTurn[])[1]!;
    // Judged finished by the turn model and the words: not the wait of an unfinished thought (how long it takes,
    // the complete wait plus what the recognizer and the turn model take on a busy machine, is the bench's figure).
    expect(metrics.turn_model_score).toBeGreaterThan(0.5);
    expect(metrics.end_of_turn_decision_ms).toBeLessThan(incompleteSilenceMs(0.5));
    expect(metrics.preemptive).toBe(1);
  });

  it('re-engages a silent caller after the interval, and goes on with the conversation when the caller answers', async () => {
    const assistantId = await bed.assistant({ initial_message: 'Hello there.', post_call_evaluation: false });
    await bed.platform.database.knex('assistants').where({ id: assistantId }).update({ reengagementInterval: 1, maxSilenceDuration: 60 });
    const requestsBefore = bed.llm.requests.length;
    const { callId, caller } = await bed.call(assistantId);

    expect(await transcriptOf(caller, 1)).toEqual(['assistant: Hello there.']);
    const greetingHeard = caller.echoed.at(-1)!.at;
    expect(await transcriptOf(caller, 2)).toEqual(['assistant: Hello there.', 'assistant: Are you still there?']);
    const reengaged = caller.received.find((message) => message.event === 'media' && message.at > greetingHeard)!.at;
    expect(reengaged - greetingHeard).toBeGreaterThanOrEqual(1000);
    expect(reengaged - greetingHeard).toBeLessThan(3000);
    const reengagement = bed.llm.requests.slice(requestsBefore).find((request) => lastUserText(request) === REENGAGE_INSTRUCTION.toLowerCase())!;
    expect(reengagement.messages.filter((message) => message.role === 'assistant').map((message) => message.content)).toEqual(['Hello there.']);

    await caller.say(await spokenPcm('Yes I am still here', { silenceMs: 200 }));
    const lines = await transcriptOf(caller, 4);
    expect(lines.slice(2)).toEqual([expect.stringMatching(/^user: .*still here/i), 'assistant: Good. How can I help you?']);
    // The instruction was a prompt, not the caller's words: the history the model sees next holds none of it.
    const answer = bed.llm.requests.slice(requestsBefore).find((request) => /still here/.test(lastUserText(request)))!;
    expect(answer.messages.some((message) => message.content === REENGAGE_INSTRUCTION)).toBe(false);
    expect(answer.messages.filter((message) => message.role === 'assistant').map((message) => message.content)).toEqual(['Hello there.', 'Are you still there?']);
    caller.stop();
    expect((await caller.closed).code).toBe(1000);

    const { call } = await bed.settled(callId);
    expect(call.transcript).toMatch(/^AI: Hello there\.\nAI: Are you still there\?\nCustomer: .*still here.*\nAI: Good\. How can I help you\?/i);
  }, 60_000);
});
