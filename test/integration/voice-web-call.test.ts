import { describe, expect, it } from 'vitest';
import { CallItem } from '../../src/resources/calls/schemas.ts';
import { type FakeTurn, lastUserText } from '../fakes/llm-server.ts';
import { connectMediaStream, L16_16K, type MediaStreamClient } from '../support/media-stream-client.ts';
import { schemaViolations } from '../support/response-schema.ts';
import { speechInstalled, speechSkipReason, spokenPcm } from '../support/speech.ts';
import { transcriptLines, webCallTestbed } from '../support/web-call.ts';

/**
 * A web call from start to finish on the embedded default: the media role runs the voice engine over the
 * offline speech stack (Silero VAD, Whisper tiny.en, the catalog voice), a scripted caller speaks espeak-ng
 * lines over the Media Streams protocol, the language model is the fake, and the call's workflow runs on a
 * real worker. What the caller hears, what is stored and what is charged are checked.
 */
describe.skipIf(!speechInstalled)(`a web call on the offline speech stack${speechInstalled ? '' : ` (${speechSkipReason})`}`, () => {
  const bed = webCallTestbed((request): FakeTurn => {
    if (request.tool_choice) {
      return { toolCalls: [{ name: 'record_call_evaluation', arguments: { status: true, summary: 'An appointment was booked for Tuesday at three.' } }] };
    }
    if (request.messages.at(-1)?.role === 'tool') return { reply: 'Goodbye, have a nice day.' };
    if (/appointment|tuesday/i.test(lastUserText(request))) return { reply: 'Sure, Tuesday at three works. Is there anything else?' };
    return { toolCalls: [{ name: 'end_call', arguments: {} }] };
  });

  /** Resolves once the assistant has finished its next turn (the live transcript shows it), with its words. */
  async function hearReply(caller: MediaStreamClient): Promise<string> {
    const before = transcriptLines(caller).length;
    await caller.waitFor(
      () => transcriptLines(caller).slice(before).some((line) => line.startsWith('assistant: ')), 30_000,
      `the assistant to finish a turn after ${JSON.stringify(transcriptLines(caller))}`,
    );
    return transcriptLines(caller).slice(before).find((line) => line.startsWith('assistant: ')) ?? '';
  }

  it('greets, answers, ends on the assistant\'s goodbye, and stores, evaluates and charges the call', async () => {
    const { platform, owner } = bed;
    const { callId, websocketUrl, caller } = await bed.call(await bed.assistant({
      initial_message: 'Hello, this is Parley. How can I help you today?',
      record: true,
      tools: [{ type: 'end_call', data: { description: 'End the call when the customer says goodbye.' } }],
    }));
    expect(websocketUrl.startsWith(platform.mediaUrl ?? '-')).toBe(true);

    expect(await hearReply(caller)).toBe('assistant: Hello, this is Parley. How can I help you today?');

    const firstLine = await spokenPcm('I would like to book an appointment for Tuesday at three.', { silenceMs: 200 });
    await caller.say(firstLine);
    expect(await hearReply(caller)).toBe('assistant: Sure, Tuesday at three works. Is there anything else?');

    const heard = caller.playedSound.length;
    // One sentence: a full stop and a pause end a turn, and the model would answer its first half.
    await caller.say(await spokenPcm('No thank you, goodbye.', { silenceMs: 200 }));
    let hungUp = false;
    void caller.closed.then(() => (hungUp = true));
    await caller.waitFor(() => hungUp, 30_000, `the assistant to hang up after ${JSON.stringify(transcriptLines(caller))}`);
    const closed = await caller.closed;
    expect(closed.code).toBe(1000);
    expect(caller.playedSound.length).toBeGreaterThan(heard);
    // The browser's live transcript: every committed turn, the caller's and the assistant's.
    expect(transcriptLines(caller)).toEqual([
      'assistant: Hello, this is Parley. How can I help you today?',
      expect.stringMatching(/^user: .*appointment/i),
      'assistant: Sure, Tuesday at three works. Is there anything else?',
      expect.stringMatching(/^user: .*goodbye/i),
      'assistant: Goodbye, have a nice day.',
    ]);

    const { result, call } = await bed.settled(callId);
    expect(result).toMatchObject({ status: 'ended_by_assistant' });
    expect(call.status).toBe('ended_by_assistant');
    expect(call.transcript).toMatch(/^AI: Hello, this is Parley\. How can I help you today\?\nCustomer: .*appointment.*\nAI: Sure, Tuesday at three works\. Is there anything else\?\nCustomer: .*goodbye.*\nAI: Goodbye, have a nice day\.$/i);
    expect(call.turns).toHaveLength(5);
    const replyTurn = call.turns.find((turn: { role: string; text: string }) => turn.text.startsWith('Sure'));
    expect(replyTurn.metrics.end_of_speech_to_first_audio_ms).toBeGreaterThan(0);
    expect(call.duration).toBeGreaterThan(3);
    expect(Number(call.totalCostMicros)).toBeGreaterThan(0);
    const [charge] = await bed.charges(callId);
    expect(Number(charge.amountMicros)).toBe(-Number(call.totalCostMicros));
    expect(call.evaluation).toEqual({ status: true, summary: 'An appointment was booked for Tuesday at three.' });
    expect(call.recordingKey).toBe(`calls/${callId}/recording.wav`);
    const recording = await platform.providers.storage.read(call.recordingKey);
    expect(recording.subarray(0, 4).toString('ascii')).toBe('RIFF');
    expect(recording.length).toBeGreaterThan(16000 * 2 * 3);

    const listed = await platform.request('GET', `/user/calls/${callId}`, { token: owner.token });
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ id: callId, type: 'web', status: 'ended_by_assistant' });
    expect(listed.body.recording_url).toMatch(/\/api\/recordings\//);
    // What the engine stored is what the API documents.
    expect(listed.body.turns).toEqual(call.turns);
    expect(schemaViolations(CallItem, listed.body)).toEqual([]);
  }, 90_000);

  it('speaks with the default voice when the assistant\'s voice belongs to a synthesizer not configured here', async () => {
    const rachel = await bed.platform.database.knex('voices').where({ name: 'Rachel' }).first<{ id: number }>('id');
    const { caller } = await bed.call(await bed.assistant({ voice_id: Number(rachel.id), initial_message: 'Hello there.' }));
    expect(await hearReply(caller)).toBe('assistant: Hello there.');
    expect(caller.playedSound.length).toBeGreaterThan(10);
    caller.stop();
    expect((await caller.closed).code).toBe(1000);
  }, 60_000);

  it('refuses a used or unknown call link with its close code', async () => {
    const caller = await connectMediaStream(`${bed.platform.mediaUrl}/media/web-call?token=not-a-token`, L16_16K);
    caller.start();
    expect(await caller.closed).toEqual({ code: 4401, reason: 'This call link has expired or was already used.' });
  });
});
