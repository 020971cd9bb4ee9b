import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { CallHooks, EndReason } from '../../src/voice/hooks.ts';
import type { UserTurn } from '../../src/voice/listening/listener.ts';
import { SessionLifecycle, type LifecycleHost, type LifecycleParts } from '../../src/voice/session-lifecycle.ts';
import { GOODBYES, REENGAGE_INSTRUCTION } from '../../src/voice/session-parts.ts';
import { DEFAULT_VOICE_SETTINGS } from '../../src/voice/settings.ts';
import { manualVoiceClock } from '../support/voice-clock.ts';

const logger = pino({ level: 'silent' });
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** A lifecycle over a host that writes down what it is asked; `silent` says whether the floor is free. */
function setup(options: { closeFails?: boolean; drop?: (reason: EndReason) => EndReason; lastWords?: () => Promise<UserTurn | undefined> } = {}) {
  const clock = manualVoiceClock();
  const asked: string[] = [];
  const closed: EndReason[] = [];
  const endings: EndReason[] = [];
  const endedAt: Date[] = [];
  let silent = true;
  let farewellHeard: () => void = () => undefined;
  const host: LifecycleHost = {
    async wrapUp(farewell) {
      asked.push(`wrap up: ${farewell ?? '-'}`);
      if (farewell) await new Promise<void>((resolve) => { farewellHeard = resolve; });
    },
    drop(reason) {
      asked.push(`drop: ${reason}`);
      return options.drop ? options.drop(reason) : reason;
    },
    ...(options.lastWords ? { lastWords: options.lastWords } : {}),
    silent: () => silent,
    reengage: (instruction) => asked.push(`re-engage: ${instruction}`),
    release: () => asked.push('release'),
  };
  const parts: LifecycleParts = {
    settings: { ...DEFAULT_VOICE_SETTINGS, reengagementMs: 10_000, maxSilenceMs: 25_000 },
    maxCallMs: 60_000,
    limitReason: 'max_duration',
    hooks: {
      onEnded: (reason, at) => {
        endings.push(reason);
        endedAt.push(at);
      },
      onTurn: (turn) => asked.push(`turn: ${turn.role}: ${turn.text}`),
    },
    clock,
    logger,
    close(reason: EndReason) {
      closed.push(reason);
      return options.closeFails ? Promise.reject(new Error('the socket is gone')) : Promise.resolve();
    },
  };
  const life = new SessionLifecycle(parts, host, 'the test session failed');
  return { life, clock, asked, closed, endings, endedAt, parts, setSilent: (value: boolean) => { silent = value; }, farewellHeard: () => farewellHeard() };
}

describe('the lifecycle both voice sessions share', () => {
  it('says the limit\'s goodbye at the time limit, then closes once with the limit as the reason', async () => {
    const { life, clock, asked, closed, endings, farewellHeard } = setup();
    life.startLimit();
    clock.advance(60_000);
    await settle();
    expect(asked).toEqual([`wrap up: ${GOODBYES.max_duration}`]);
    expect(life.ending).toBe(true);
    expect(life.finished).toBe(false);
    farewellHeard();
    await expect(life.ended).resolves.toBe('max_duration');
    expect(asked.at(-1)).toBe('release');
    expect(closed).toEqual(['max_duration']);
    expect(endings).toEqual(['max_duration']);
    await life.hangUp('hangup_requested');
    await life.endNow('customer_hangup');
    expect(closed).toEqual(['max_duration']);
  });

  it('re-engages a silent caller, then ends the call with the silence goodbye; re-engaging does not reset the limit', async () => {
    const { life, clock, asked } = setup();
    life.armSilence();
    clock.advance(10_000);
    expect(asked).toEqual([`re-engage: ${REENGAGE_INSTRUCTION}`]);
    // Each check counts the next interval from its end; the end counts from the caller's last words, at 25 s.
    life.anyoneSpokeAt = clock.now();
    life.armSilence();
    clock.advance(10_000);
    life.anyoneSpokeAt = clock.now();
    life.armSilence();
    clock.advance(5_000);
    await settle();
    expect(asked).toEqual([`re-engage: ${REENGAGE_INSTRUCTION}`, `re-engage: ${REENGAGE_INSTRUCTION}`, `wrap up: ${GOODBYES.silence_timeout}`]);
  });

  it('fills no silence while someone has the floor, counts again from the caller\'s words, and uses the assistant\'s own prompt', () => {
    const { life, clock, asked, parts, setSilent } = setup();
    setSilent(false);
    life.armSilence();
    clock.advance(30_000);
    // Someone took the floor after the timer was set: it does nothing when it fires.
    setSilent(true);
    life.callerSpoke(clock.now());
    life.armSilence();
    setSilent(false);
    clock.advance(10_000);
    expect(asked).toEqual([]);
    setSilent(true);
    life.callerSpoke(clock.now());
    parts.settings = { ...parts.settings, reengagementPrompt: 'Ask if they are there.' };
    life.armSilence();
    clock.advance(5_000);
    // The caller starts speaking: no silence is filled, and its clocks count from now once the turn is over.
    life.callerSpoke(clock.now());
    life.cancelSilence();
    clock.advance(9_000);
    expect(asked).toEqual([]);
    life.armSilence();
    clock.advance(1_000);
    expect(asked).toEqual(['re-engage: Ask if they are there.']);
  });

  it('ends at once when the stream ends during the goodbye, with the reason the session gives', async () => {
    const { life, asked, closed, endings, farewellHeard } = setup({ drop: () => 'transferred' });
    const hangingUp = life.hangUp('silence_timeout', GOODBYES.silence_timeout);
    await life.endNow('customer_hangup');
    expect(asked).toEqual([`wrap up: ${GOODBYES.silence_timeout}`, 'drop: customer_hangup', 'release']);
    expect(life.finished).toBe(true);
    farewellHeard();
    await hangingUp;
    expect(closed).toEqual(['transferred']);
    expect(endings).toEqual(['transferred']);
    await expect(life.ended).resolves.toBe('transferred');
  });

  it('ends the call as an error when guarded work fails, and reports the end even when closing fails', async () => {
    const { life, asked, closed, endings } = setup({ closeFails: true });
    life.guard(Promise.reject(new Error('the model went away')));
    await expect(life.ended).resolves.toBe('error');
    expect(asked).toEqual(['drop: error', 'release']);
    expect(closed).toEqual(['error']);
    expect(endings).toEqual(['error']);
  });

  it('reports turns against the moment the call was answered', () => {
    const turns: unknown[] = [];
    const { life, clock, parts } = setup();
    parts.hooks = { ...parts.hooks, onTurn: (turn) => turns.push(turn) } satisfies CallHooks;
    clock.advance(1_500);
    life.report({ role: 'user', text: 'hello', startedAt: clock.now() - 500, endedAt: clock.now(), interrupted: false, metrics: {} });
    expect(turns).toEqual([expect.objectContaining({ text: 'hello', start_offset_ms: 1_000, end_offset_ms: 1_500 })]);
  });

  it('keeps the caller\'s last words, heard before the line ended, as their last turn, and ends the call when the line did', async () => {
    let words: (turn: UserTurn | undefined) => void = () => undefined;
    const { life, clock, asked, endings, endedAt } = setup({ lastWords: () => new Promise((resolve) => { words = resolve; }) });
    const lineEnded = Date.now();
    const ending = life.endNow('customer_hangup');
    await settle();
    expect(asked).toEqual(['drop: customer_hangup']);
    expect(life.ending).toBe(true);
    expect(life.finished).toBe(false);
    // The engine failing meanwhile does not close the call before the words are in.
    void life.endNow('error');
    await new Promise((resolve) => setTimeout(resolve, 20));
    const at = clock.now();
    words({ text: 'Cancel my order.', startedAt: at - 900, speechEndedAt: at - 100, transcribedAt: at, committedAt: at, score: undefined, verdict: 'no_score' });
    await ending;
    expect(asked).toEqual(['drop: customer_hangup', 'turn: user: Cancel my order.', 'release']);
    expect(endings).toEqual(['customer_hangup']);
    expect(endedAt[0]!.getTime()).toBeLessThan(lineEnded + 15);
  });

  it('asks for no last words when the stream ends while the call is already ending', async () => {
    let asked = 0;
    const { life, endings } = setup({ lastWords: () => Promise.resolve(void asked++) });
    void life.hangUp('assistant_end_call', 'Goodbye.');
    await settle();
    await life.endNow('customer_hangup');
    expect(asked).toBe(0);
    expect(endings).toEqual(['customer_hangup']);
  });
});
