import { describe, expect, it } from 'vitest';
import { MessageCue } from '../../src/voice/voicemail/cue.ts';
import { AnswerJudge, type Verdict } from '../../src/voice/voicemail/judge.ts';
import { normalizeWords, voicemailPhrase } from '../../src/voice/voicemail/phrases.ts';
import { AnswerScreening } from '../../src/voice/voicemail/screening.ts';
import { manualVoiceClock } from '../support/voice-clock.ts';

describe('voicemail phrases', () => {
  it.each([
    'Hi, you have reached Sam. I cannot take your call right now. Please leave a message after the tone.',
    'You\u2019ve reached the Millers.',
    'The person you are calling is not available.',
    'Sorry, I can\'t come to the phone right now.',
    'Please leave your name and number and I will get back to you.',
    'At the beep, please record your message.',
    'Your call has been forwarded to an automated voice messaging system. Mailbox 4 1 5 is full.',
    'Hi this is Dana, leave me a message',
    'Welcome to the voicemail of John Smith.',
    'the number you have dialed is unavailable',
    'When you have finished recording, you may hang up.',
  ])('finds a voicemail greeting in "%s"', (text) => {
    expect(voicemailPhrase(text)).toBeDefined();
  });

  it.each([
    'Hello?',
    'Hi, this is Sam speaking.',
    'Yes, speaking. Who is this?',
    'Hello, Acme Plumbing, how can I help you?',
    'Yes, that sounds good. Thank you, goodbye.',
    'I reached out to you last week about the offer.',
    'Can you call back tomorrow? I am driving.',
    'Leave it, I will do it myself.',
    '',
  ])('finds none in "%s"', (text) => {
    expect(voicemailPhrase(text)).toBeUndefined();
  });

  it('normalizes case, punctuation and contractions', () => {
    expect(normalizeWords('  I CAN\'T take your call -- sorry!! ')).toBe('i cannot take your call sorry');
    expect(normalizeWords('can not')).toBe('cannot');
  });
});

/** A judge answered at 0, its opening line over at `openingEndsAt`. */
function judge(openingEndsAt = 0): AnswerJudge {
  const judged = new AnswerJudge(0);
  judged.openingEnded(openingEndsAt);
  return judged;
}

describe('the answer judge', () => {
  it('calls a person who says a short hello and stops for an answer human, when the turn ends', () => {
    const judged = judge(2500);
    expect(judged.speechStarted(400)).toBeUndefined();
    expect(judged.speechEnded(900)).toBeUndefined();
    expect(judged.check(1500)).toBeUndefined();
    expect(judged.turnEnded('Hello?', 1700)).toEqual({ answeredBy: 'human', cause: 'reply', at: 1700 });
    // Once judged, nothing changes it.
    expect(judged.heard('please leave a message', 1800)).toBeUndefined();
    expect(judged.verdict?.answeredBy).toBe('human');
  });

  it('calls voicemail words a machine as soon as the recognizer hears them', () => {
    const judged = judge(300);
    judged.speechStarted(200);
    expect(judged.heard('Hi, you have reached Sam.', 1500)).toEqual({ answeredBy: 'machine', cause: 'phrase', at: 1500, phrase: 'you have reached' });
  });

  it('calls a greeting that goes on past the long-greeting limit a machine, pauses between its sentences included', () => {
    const judged = judge(250);
    judged.speechStarted(100);
    judged.speechEnded(1400);
    expect(judged.check(1700)).toBeUndefined();
    judged.speechStarted(1700);
    expect(judged.check(3000)).toBeUndefined();
    expect(judged.check(3400)).toEqual({ answeredBy: 'machine', cause: 'long_greeting', at: 3400 });
  });

  it('counts a greeting as over after a long pause, and a long reply to the opening line as a person\'s turn', () => {
    const paused = judge(0);
    paused.speechStarted(500);
    paused.speechEnded(2000);
    expect(paused.check(3600)).toBeUndefined();
    paused.speechStarted(3600);
    expect(paused.check(6000)).toBeUndefined();

    // The person listened to a 4 s opening line, then talked for 5 s.
    const reply = judge(4000);
    reply.speechStarted(4800);
    expect(reply.check(9800)).toBeUndefined();
    reply.speechEnded(9800);
    expect(reply.turnEnded('Oh yes, I was hoping someone would call me back about the quote for the new kitchen.', 10_600)).toMatchObject({ answeredBy: 'human' });
  });

  it('counts speech over the opening line as the greeting however late, and speech soon after the answer without an opening', () => {
    const over = new AnswerJudge(0);
    over.speechStarted(2500);
    expect(over.check(5600)).toMatchObject({ answeredBy: 'machine', cause: 'long_greeting' });
    const quiet = judge(0);
    quiet.speechStarted(1500);
    expect(quiet.check(4600)).toMatchObject({ answeredBy: 'machine' });
  });

  it('calls a beep a machine, and a line nobody speaks on, or the end of the window, unknown', () => {
    const beeped = judge(0);
    expect(beeped.beep({ type: 'beep_ended', atMs: 10, frequencyHz: 1000, durationMs: 200 }, 10)).toBeUndefined();
    expect(beeped.beep({ type: 'beep_started', atMs: 800, frequencyHz: 1000 }, 920)).toEqual({ answeredBy: 'machine', cause: 'beep', at: 920 });

    const silent = judge(3000);
    expect(silent.check(8999)).toBeUndefined();
    expect(silent.check(9000)).toEqual({ answeredBy: 'unknown', cause: 'silence', at: 9000 });

    // Short words now and then, never a turn: the window ends it.
    const murmur = judge(0);
    for (let at = 500; at < 28_000; at += 2000) {
      murmur.speechStarted(at);
      murmur.speechEnded(at + 300);
      expect(murmur.check(at + 1999)).toBeUndefined();
    }
    expect(murmur.check(30_000)).toMatchObject({ answeredBy: 'unknown', cause: 'timeout' });
  });

  it('waits for the opening line before counting silence', () => {
    const judged = new AnswerJudge(0);
    expect(judged.check(20_000)).toBeUndefined();
    judged.openingEnded(20_000);
    expect(judged.check(26_000)).toMatchObject({ answeredBy: 'unknown', cause: 'silence' });
  });

  it('hears voicemail words in a turn that ends', () => {
    expect(judge(0).turnEnded('Please leave a message after the tone', 4000)).toMatchObject({ answeredBy: 'machine', cause: 'phrase' });
  });
});

describe('the voicemail message\'s cue', () => {
  it('comes just after the beep, unless the box speaks again', () => {
    const cue = new MessageCue(0);
    cue.speechStarted(100);
    cue.speechEnded(5000);
    expect(cue.due(5500, 2000)).toBe(false);
    cue.beep({ type: 'beep_started', atMs: 5300, frequencyHz: 1000 });
    expect(cue.due(5600, 2000)).toBe(false);
    cue.beep({ type: 'beep_ended', atMs: 5700, frequencyHz: 1000, durationMs: 400 });
    // A voice detector that heard the beep as speech does not hold the message back.
    cue.speechStarted(5300);
    expect(cue.due(6000, 2000)).toBe(false);
    expect(cue.due(6100, 2000)).toBe(true);

    const menu = new MessageCue(0);
    menu.beep({ type: 'beep_started', atMs: 1000, frequencyHz: 1000 });
    menu.beep({ type: 'beep_ended', atMs: 1200, frequencyHz: 1000, durationMs: 200 });
    menu.speechStarted(1400);
    expect(menu.due(1700, 1000)).toBe(false);
    menu.speechEnded(3000);
    menu.beep({ type: 'beep_started', atMs: 3200, frequencyHz: 1400 });
    menu.beep({ type: 'beep_ended', atMs: 3500, frequencyHz: 1400, durationMs: 300 });
    expect(menu.due(3899, 1000)).toBe(false);
    expect(menu.due(3900, 1000)).toBe(true);
  });

  it('comes after a long quiet when the box never beeps, and at the cap when it never stops', () => {
    const quiet = new MessageCue(0);
    quiet.speechStarted(100);
    quiet.speechEnded(6000);
    expect(quiet.due(8999, 3000)).toBe(false);
    expect(quiet.due(9000, 3000)).toBe(true);

    const talker = new MessageCue(0);
    talker.speechStarted(100);
    expect(talker.due(32_999, 3000)).toBe(false);
    expect(talker.due(33_000, 3000)).toBe(true);
  });
});

describe('answer screening on a call', () => {
  const frame = (hz: number) => Int16Array.from({ length: 320 }, (_, i) => Math.round(hz ? 8000 * Math.sin((2 * Math.PI * hz * i) / 16000) : 0));

  function screen() {
    const clock = manualVoiceClock(0);
    const verdicts: Verdict[] = [];
    const screening = new AnswerScreening({ clock, onVerdict: (verdict) => verdicts.push(verdict) });
    /** `ms` of frames of `hz` (0: silence), 20 ms apart. */
    const play = (hz: number, ms: number) => {
      for (let t = 0; t < ms; t += 20) {
        clock.advance(20);
        screening.hear(frame(hz));
      }
    };
    return { clock, verdicts, screening, play };
  }

  it('judges a greeting with voicemail words a machine, then cues the message just after the beep', async () => {
    const { clock, verdicts, screening, play } = screen();
    screening.openingEnded();
    let cued = false;
    void screening.messageCue().then(() => { cued = true; });
    screening.speechStarted(clock.now());
    play(0, 1200);
    screening.heard('Hi, you have reached Sam.');
    expect(verdicts).toEqual([expect.objectContaining({ answeredBy: 'machine', cause: 'phrase' })]);
    expect(screening.answeredBy).toBe('machine');
    play(0, 2000);
    screening.speechEnded(clock.now());
    play(0, 500);
    play(1000, 400);
    play(0, 300);
    await Promise.resolve();
    expect(cued).toBe(false);
    play(0, 200);
    await Promise.resolve();
    expect(cued).toBe(true);
    expect(verdicts).toHaveLength(1);
  });

  it('judges a beep alone a machine, judges a person once, and stops looking after a person', async () => {
    const machine = screen();
    machine.screening.openingEnded();
    machine.play(0, 200);
    machine.play(1000, 300);
    expect(machine.verdicts).toEqual([expect.objectContaining({ answeredBy: 'machine', cause: 'beep' })]);

    const person = screen();
    person.screening.openingEnded();
    person.screening.speechStarted(person.clock.now());
    person.play(0, 600);
    person.screening.speechEnded(person.clock.now());
    person.play(0, 800);
    person.screening.turnEnded('Hello?');
    person.play(1000, 400);
    person.screening.turnEnded('leave a message');
    expect(person.verdicts).toEqual([expect.objectContaining({ answeredBy: 'human', cause: 'reply' })]);
    // Closed screening frees whoever waits for a cue.
    person.screening.close();
    await expect(person.screening.messageCue()).resolves.toBeUndefined();
  });

  it('says unknown on a silent line', () => {
    const { verdicts, screening, play } = screen();
    screening.openingEnded();
    play(0, 6100);
    expect(verdicts).toEqual([expect.objectContaining({ answeredBy: 'unknown', cause: 'silence' })]);
  });
});
