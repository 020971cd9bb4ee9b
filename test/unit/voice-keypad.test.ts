import { describe, expect, it } from 'vitest';
import type { KeypadEntry } from '../../src/agent/ports.ts';
import { FREE_KEYS_PAUSE_MS, Keypad } from '../../src/voice/turns/keypad.ts';
import { manualVoiceClock } from '../support/voice-clock.ts';

function setup() {
  const clock = manualVoiceClock();
  const free: string[] = [];
  const keypad = new Keypad(clock, (keys) => free.push(keys));
  let speaking = false;
  const controller = new AbortController();
  const collect = (timeoutMs = 5000, stopKey: '#' | '*' = '#') => {
    const outcome: { entry?: KeypadEntry; error?: unknown } = {};
    keypad.collect({ timeoutMs, stopKey, speaking: () => speaking, signal: controller.signal })
      .then((entry) => { outcome.entry = entry; }, (error: unknown) => { outcome.error = error; });
    return outcome;
  };
  const press = (keys: string) => { for (const key of keys) keypad.press(key); };
  return { clock, keypad, free, collect, press, controller, setSpeaking: (value: boolean) => { speaking = value; } };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('the caller\'s keypad', () => {
  it('collects the digits up to the stop key, without it', async () => {
    const { collect, press, free } = setup();
    const outcome = collect();
    await settle();
    press('1234#');
    await settle();
    expect(outcome.entry).toEqual({ digits: '1234', endedBy: 'stop_key' });
    expect(free).toEqual([]);
  });

  it('ends the entry after the timeout without a key, counted from the last key', async () => {
    const { collect, press, clock } = setup();
    const outcome = collect(5000, '*');
    await settle();
    clock.advance(3000);
    press('42#');
    clock.advance(4999);
    await settle();
    expect(outcome.entry).toBeUndefined();
    clock.advance(1);
    await settle();
    // With `*` as the stop key, `#` is a digit like any other.
    expect(outcome.entry).toEqual({ digits: '42#', endedBy: 'timeout' });
  });

  it('times out with no digits when the caller types nothing', async () => {
    const { collect, clock } = setup();
    const outcome = collect(2000);
    await settle();
    clock.advance(2000);
    await settle();
    expect(outcome.entry).toEqual({ digits: '', endedBy: 'timeout' });
  });

  it('starts the timeout only once the assistant has stopped speaking', async () => {
    const { collect, clock, setSpeaking } = setup();
    setSpeaking(true);
    const outcome = collect(2000);
    await settle();
    clock.advance(6000);
    await settle();
    expect(outcome.entry).toBeUndefined();
    setSpeaking(false);
    clock.advance(1900);
    await settle();
    expect(outcome.entry).toBeUndefined();
    clock.advance(300);
    await settle();
    expect(outcome.entry).toEqual({ digits: '', endedBy: 'timeout' });
  });

  it('abandons the entry when the signal aborts (the caller barged in), and keys go back to being input', async () => {
    const { collect, press, controller, free, clock } = setup();
    const outcome = collect();
    await settle();
    press('12');
    controller.abort(new Error('The caller interrupted.'));
    await settle();
    expect(outcome.error).toEqual(new Error('The caller interrupted.'));
    press('9');
    clock.advance(FREE_KEYS_PAUSE_MS);
    expect(free).toEqual(['9']);
  });

  it('hands keys typed outside a collection on as one entry at # or after a pause', () => {
    const { press, free, clock } = setup();
    press('12');
    clock.advance(FREE_KEYS_PAUSE_MS - 1);
    press('3#');
    expect(free).toEqual(['123#']);
    press('7');
    clock.advance(FREE_KEYS_PAUSE_MS);
    expect(free).toEqual(['123#', '7']);
  });

  it('gives keys typed just before a collection to it', async () => {
    const { collect, press, free } = setup();
    press('55');
    const outcome = collect();
    await settle();
    press('6#');
    await settle();
    expect(outcome.entry).toEqual({ digits: '556', endedBy: 'stop_key' });
    expect(free).toEqual([]);
  });

  it('collects nothing more once closed', async () => {
    const { keypad, press, free, clock, collect } = setup();
    press('1');
    keypad.close();
    clock.advance(FREE_KEYS_PAUSE_MS);
    press('2#');
    expect(free).toEqual([]);
    const outcome = collect();
    await settle();
    expect(outcome.error).toBeInstanceOf(Error);
  });
});
