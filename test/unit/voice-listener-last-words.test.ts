import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { SegmentSpeechToText } from '../../src/providers/stt/types.ts';
import { systemVoiceClock } from '../../src/voice/clock.ts';
import { Listener, type ListenerHandlers } from '../../src/voice/listening/listener.ts';
import { DEFAULT_VOICE_SETTINGS } from '../../src/voice/settings.ts';
import { energyVad, tone, toneStt } from '../support/speech-doubles.ts';

const logger = pino({ level: 'silent' });
const FRAME = 320;

/** A listener over the energy detector and `stt`, writing down what it tells the session. */
function listen(stt: SegmentSpeechToText) {
  const told: string[] = [];
  const handlers: ListenerHandlers = {
    speechStarted: () => told.push('speech'),
    speechEnded: () => told.push('pause'),
    progress: () => undefined,
    wantsWords: () => false,
    draft: (text) => told.push(`draft: ${text}`),
    discardDraft: () => told.push('discard'),
    turn: (turn) => told.push(`turn: ${turn.text}`),
  };
  const listener = new Listener({ stt, vad: energyVad(), settings: DEFAULT_VOICE_SETTINGS, clock: systemVoiceClock, logger, handlers });
  const say = (samples: Int16Array) => {
    for (let offset = 0; offset + FRAME <= samples.length; offset += FRAME) listener.push(samples.subarray(offset, offset + FRAME));
  };
  return { listener, told, say };
}

describe('the caller\'s last words when the line ends', () => {
  it('keeps a turn the caller paused after, before it was committed, with its words and no reply drafted', async () => {
    const { listener, told, say } = listen(toneStt({ 440: 'cancel my order' }));
    say(tone(440, 600));
    say(new Int16Array(FRAME * 6));
    expect(told).toEqual(['speech', 'pause']);
    const turn = await listener.finish();
    expect(turn).toMatchObject({ text: 'cancel my order' });
    expect(told).toEqual(['speech', 'pause']);
    listener.close();
  });

  it('keeps speech the hang-up cut, decoded up to the end of the line', async () => {
    const { listener, told, say } = listen(toneStt({ 440: 'cancel my order' }));
    say(tone(440, 600));
    const turn = await listener.finish();
    expect(turn?.text).toBe('cancel my order');
    expect(told).toEqual(['speech']);
    listener.close();
  });

  it('keeps what it has once the grace is over when the recognizer does not answer', async () => {
    const silent: SegmentSpeechToText = { kind: 'segment', name: 'hung', transcribe: () => new Promise(() => undefined) };
    const { listener, say } = listen(silent);
    say(tone(440, 600));
    const started = performance.now();
    const turn = await listener.finish(100);
    expect(performance.now() - started).toBeGreaterThanOrEqual(90);
    expect(turn?.text).toBe('');
    listener.close();
  });

  it('has nothing to keep when no turn was open', async () => {
    const { listener, say } = listen(toneStt({ 440: 'cancel my order' }));
    say(new Int16Array(FRAME * 10));
    expect(await listener.finish()).toBeUndefined();
    listener.close();
  });
});
