import { afterEach, describe, expect, it } from 'vitest';
import { MULAW_8K } from '../support/media-stream-client.ts';
import { rms } from '../support/speech.ts';
import { recordedWav, roles, say, startVoiceHarness } from '../support/voice-harness.ts';

type Harness = Awaited<ReturnType<typeof startVoiceHarness>>;
let harness: Harness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('a caller who speaks before the call has loaded', { timeout: 15_000 }, () => {
  it('is heard and answered: the audio said while the call loaded is kept, with the time it was said', async () => {
    harness = await startVoiceHarness({ settings: { waitForCustomer: true, record: true }, loadDelayMs: 800 });
    harness.llm.script({ text: 'We open at nine.' });
    const call = await harness.call(MULAW_8K);
    // The whole question is said before the session exists.
    await say(call, 'hours', 600);
    await call.client.waitFor(() => call.turns.length === 2, 5000, 'the answer');
    expect(roles(call)).toEqual(['user: What are your opening hours?', 'assistant: We open at nine.']);
    // Times count from the answer, which came after the caller began.
    expect(call.turns[0]!.start_offset_ms).toBeLessThan(0);
    call.client.stop();
    await call.ended;
    // The recording starts at the answer, without what was said before it: it opens on the line's silence
    // (the question, had it been recorded, would fill its first 600 ms), then the answer.
    const wav = recordedWav(call);
    const samples = new Int16Array(wav.buffer, wav.byteOffset + 44, (wav.length - 44) / 2);
    expect(rms(samples.subarray(0, 1600))).toBeLessThan(100);
    expect(rms(samples)).toBeGreaterThan(500);
  });
});
