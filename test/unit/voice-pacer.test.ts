import { describe, expect, it } from 'vitest';
import { OutputPacer, type PacedOutput } from '../../src/voice/transports/pacer.ts';
import { manualVoiceClock } from '../support/voice-clock.ts';

function recordingOutput() {
  const sent: { kind: 'frame' | 'mark' | 'clear'; at: number; dueAt?: number; name?: string; first?: number }[] = [];
  return { sent, output: (now: () => number): PacedOutput => ({
    frame: (samples, dueAt) => sent.push({ kind: 'frame', at: now(), dueAt, first: samples[0] }),
    mark: (name) => sent.push({ kind: 'mark', at: now(), name }),
    clear: () => sent.push({ kind: 'clear', at: now() }),
  }) };
}

/** Lets pending promise callbacks run. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

const frame = (value: number) => new Int16Array(320).fill(value);

describe('OutputPacer', () => {
  it('sends frames in real time, never more than the lead ahead, each due 20 ms after the last', async () => {
    const clock = manualVoiceClock();
    const { sent, output } = recordingOutput();
    const pacer = new OutputPacer(output(clock.now), { clock, leadMs: 60, frameSamples: 320, capacityFrames: 100 });
    for (let i = 0; i < 50; i++) await pacer.write(frame(i));
    clock.advance(0);
    // At the start: the frame due now and those within the 60 ms lead.
    expect(sent.filter((item) => item.kind === 'frame')).toHaveLength(4);
    for (let t = 0; t < 1000; t += 7) {
      clock.advance(7);
      for (const item of sent) expect(item.dueAt! - item.at).toBeLessThanOrEqual(60);
    }
    const frames = sent.filter((item) => item.kind === 'frame');
    expect(frames).toHaveLength(50);
    expect(frames.map((item) => item.first)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    // Due times from the start of the run: no drift however late each timer fires.
    frames.forEach((item, i) => expect(item.dueAt).toBe(frames[0]!.dueAt! + 20 * i));
  });

  it('makes writers wait while the queue is full', async () => {
    const clock = manualVoiceClock();
    const { output } = recordingOutput();
    const pacer = new OutputPacer(output(clock.now), { clock, leadMs: 0, frameSamples: 320, capacityFrames: 3 });
    for (let i = 0; i < 3; i++) await pacer.write(frame(i));
    let fourth = false;
    void pacer.write(frame(3)).then(() => { fourth = true; });
    await settled();
    expect(fourth).toBe(false);
    clock.advance(0);
    await settled();
    expect(fourth).toBe(true);
  });

  it('sends a mark right after the last frame queued before it', async () => {
    const clock = manualVoiceClock();
    const { sent, output } = recordingOutput();
    const pacer = new OutputPacer(output(clock.now), { clock, leadMs: 0, frameSamples: 320 });
    await pacer.write(frame(1));
    await pacer.write(frame(2));
    pacer.mark('s1');
    clock.advance(0);
    expect(sent.map((item) => item.kind)).toEqual(['frame']);
    clock.advance(20);
    expect(sent.map((item) => item.name ?? item.kind)).toEqual(['frame', 'frame', 's1']);
    expect(sent[2]!.at).toBe(sent[1]!.at);
    expect(pacer.pendingFrames).toBe(0);
  });

  it('clear drops the queue, sends clear, and starts the next frame as a new run', async () => {
    const clock = manualVoiceClock();
    const { sent, output } = recordingOutput();
    const pacer = new OutputPacer(output(clock.now), { clock, leadMs: 40, frameSamples: 320 });
    for (let i = 0; i < 10; i++) await pacer.write(frame(i));
    pacer.mark('lost');
    clock.advance(30);
    pacer.clear();
    expect(pacer.pendingFrames).toBe(0);
    clock.advance(500);
    expect(sent.filter((item) => item.kind === 'frame')).toHaveLength(4);
    expect(sent.at(-1)?.kind).toBe('clear');
    await pacer.write(frame(99));
    clock.advance(0);
    expect(sent.at(-1)).toMatchObject({ kind: 'frame', first: 99, dueAt: clock.now() });
  });

  it('with a background, sends frames of it alone while nothing is queued and mixes it into speech', async () => {
    const clock = manualVoiceClock();
    const { sent, output } = recordingOutput();
    const pacer = new OutputPacer(output(clock.now), { clock, leadMs: 0, frameSamples: 320, background: (samples) => samples.fill(samples[0]! + 5) });
    clock.advance(100);
    expect(sent.filter((item) => item.kind === 'frame').map((item) => item.first)).toEqual([5, 5, 5, 5, 5, 5]);
    await pacer.write(frame(10));
    clock.advance(20);
    expect(sent.at(-1)?.first).toBe(15);
    pacer.close();
  });
});
