import { afterEach, describe, expect, it } from 'vitest';
import type { SafeFetch } from '../../src/lib/safe-fetch.ts';
import { MULAW_8K } from '../support/media-stream-client.ts';
import { scriptedTurnModel, tone } from '../support/speech-doubles.ts';
import { roles, startVoiceHarness, UTTERANCES } from '../support/voice-harness.ts';

type Harness = Awaited<ReturnType<typeof startVoiceHarness>>;
let harness: Harness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** Two of the known utterances with a pause of `pauseMs` between them, as one stretch of the caller's audio. */
function withPause(first: keyof typeof UTTERANCES, pauseMs: number, second: keyof typeof UTTERANCES): Int16Array {
  const parts = [tone(UTTERANCES[first].pitch, 600), new Int16Array((pauseMs * 16000) / 1000), tone(UTTERANCES[second].pitch, 600)];
  const audio = new Int16Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    audio.set(part, at);
    at += part.length;
  }
  return audio;
}

describe('turn-taking: the reply drafted at a pause, the turn decided by the voice and the words', { timeout: 15_000 }, () => {
  it('holds a draft at the pause, and discards it without a trace when the caller goes on: no tool run, nothing heard, said or kept', async () => {
    const fetched: string[] = [];
    const fetch: SafeFetch = (url) => {
      fetched.push(url);
      return Promise.resolve({ url, status: 200, ok: true, headers: {}, contentType: 'application/json', body: Buffer.from('{"free":true}'), redirects: [] });
    };
    // No turn model: the policy waits the plain silence (1200 ms at sensitivity 0), longer than the caller's pause.
    harness = await startVoiceHarness({
      settings: { waitForCustomer: true, endpointSensitivity: 0 },
      fetch,
      profile: {
        httpTools: [{ name: 'check_table', description: 'Whether a table is free', endpoint: 'http://tables.example/free', method: 'GET', timeoutSeconds: 2, headers: [], parameters: [] }],
      },
    });
    // The draft, asked with the words before the pause, calls the tool; the reply to the whole turn does not.
    harness.llm.script({ calls: [{ name: 'check_table', arguments: '{}' }] }, { text: 'We open at nine, and there is a table.' });
    const call = await harness.call(MULAW_8K);
    const said = call.client.say(withPause('book', 450, 'hours'));
    await call.client.waitFor(() => harness!.llm.requests.length >= 1, 5000, 'the draft');
    const soundBefore = call.client.playedSound.length;
    await said;
    const soundWhileSpeaking = call.client.playedSound.length - soundBefore;
    await call.client.waitFor(() => call.turns.length === 2, 8000, 'the answer');

    const whole = `${UTTERANCES.book.text} ${UTTERANCES.hours.text}`;
    expect(roles(call)).toEqual([`user: ${whole}`, 'assistant: We open at nine, and there is a table.']);
    // The draft answered the words before the pause, and was stopped; its tool never ran, nothing of it played.
    const [draft, answer] = harness.llm.requests;
    expect(draft!.messages.at(-1)).toEqual({ role: 'user', content: UTTERANCES.book.text });
    expect(harness.llm.aborted).toHaveLength(1);
    expect(fetched).toEqual([]);
    expect(soundWhileSpeaking).toBe(0);
    // The reply the caller heard saw the whole turn, and no trace of the draft: no tool call, no words of it.
    expect(harness.llm.requests).toHaveLength(2);
    expect(answer!.messages.filter((message) => message.role !== 'system')).toEqual([{ role: 'user', content: whole }]);
    expect(call.turns[1]!.metrics).toMatchObject({ preemptive: 1, preemptive_discarded: 1 });
  });

  it('waits through a pause the turn model hears as unfinished, and answers once, after the whole thought', async () => {
    const turn = scriptedTurnModel();
    turn.scores.push(0.1, 0.95);
    harness = await startVoiceHarness({ settings: { waitForCustomer: true, endpointSensitivity: 0.5 }, turn });
    harness.llm.script({ text: 'Fine.' }, { text: 'We open at nine.' });
    const call = await harness.call(MULAW_8K);
    await call.client.say(withPause('book', 700, 'hours'));
    await call.client.waitFor(() => call.turns.length === 2, 8000, 'the answer');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(roles(call)).toEqual([`user: ${UTTERANCES.book.text} ${UTTERANCES.hours.text}`, 'assistant: We open at nine.']);
    expect(turn.heard).toHaveLength(2);
    expect(call.turns[1]!.metrics).toMatchObject({ turn_model_score: 0.95, preemptive: 1, preemptive_discarded: 1 });
  });

  it('commits a turn the voice and the words say is finished a short silence after the caller stops, with the drafted reply', async () => {
    const turn = scriptedTurnModel(0.93);
    harness = await startVoiceHarness({ settings: { waitForCustomer: true, endpointSensitivity: 0.5 }, turn });
    harness.llm.script({ text: 'We open at nine.' });
    const call = await harness.call(MULAW_8K);
    await call.client.say(tone(UTTERANCES.hours.pitch, 600));
    await call.client.waitFor(() => call.turns.length === 2, 5000, 'the answer');
    const { metrics } = call.turns[1]!;
    expect(metrics).toMatchObject({ turn_model_score: 0.93, preemptive: 1, preemptive_discarded: 0 });
    // The policy's complete wait is 217 ms; the model hears 200 ms of silence first. The figure is the bench's.
    expect(metrics.end_of_turn_decision_ms).toBeLessThan(1000);
    expect(harness.llm.requests).toHaveLength(1);
    // What the model heard: the turn, and then 200 ms of the silence after it.
    const [heard] = turn.heard;
    expect(heard!.subarray(-3000).every((sample) => sample === 0)).toBe(true);
    expect(heard!.some((sample) => Math.abs(sample) > 5000)).toBe(true);
  });
});
