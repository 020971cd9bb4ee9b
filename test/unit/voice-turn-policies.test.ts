import { describe, expect, it } from 'vitest';
import { minVoicedMs, shouldInterrupt, wordCount } from '../../src/voice/turns/barge-in.ts';
import { completeness, endOfTurnSilenceMs, vadSilenceMs } from '../../src/voice/turns/endpointing.ts';
import { nextSilenceAction } from '../../src/voice/turns/silence.ts';

describe('endpointing', () => {
  it('maps a higher endpoint sensitivity to a shorter silence, within bounds', () => {
    expect(vadSilenceMs(0)).toBe(1200);
    expect(vadSilenceMs(0.5)).toBe(771);
    expect(vadSilenceMs(1)).toBe(600);
    expect(vadSilenceMs(5)).toBe(318);
    expect(vadSilenceMs(50)).toBe(318);
    expect(vadSilenceMs(-1)).toBe(1200);
  });

  it('reads whether the words sound finished', () => {
    expect(completeness('What are your opening hours?')).toBe('complete');
    expect(completeness('I would like to book a table for')).toBe('incomplete');
    expect(completeness('I want the, um')).toBe('incomplete');
    expect(completeness('So,')).toBe('incomplete');
    expect(completeness('my name is Anna')).toBe('unknown');
    // A number ends the words; the recognizer writes spoken digits as numerals.
    expect(completeness('My account number is 4 5 6 7')).toBe('unknown');
    // Nor does the recognizer's full stop after a number: it may be the first group of one read in groups.
    expect(completeness('My phone number is 555.')).toBe('unknown');
    expect(completeness('My card number is 4 4.')).toBe('unknown');
    expect(completeness('The address is 22.')).toBe('unknown');
    // One or two digits after a word such as "at" or "for" are a time or a count, and a clock time is one:
    // finished by the full stop like any word.
    expect(completeness('Tuesday at 3.')).toBe('complete');
    expect(completeness('Tuesday at 3:30.')).toBe('complete');
    expect(completeness('A table for 12.')).toBe('complete');
    expect(completeness('A table for 120.')).toBe('unknown');
    expect(completeness('Am Dienstag um 3.', 'de-DE')).toBe('complete');
    expect(completeness('Meine Nummer ist 22.', 'de-DE')).toBe('unknown');
    expect(completeness('Tuesday at three.')).toBe('complete');
    expect(completeness('')).toBe('unknown');
  });

  it('waits the plain silence under vad whatever the words, and shorter or longer under ai', () => {
    const vad = { endpointType: 'vad' as const, endpointSensitivity: 0.5 };
    const ai = { endpointType: 'ai' as const, endpointSensitivity: 0.5 };
    expect(endOfTurnSilenceMs(vad, 'Thanks, that is all.')).toBe(771);
    expect(endOfTurnSilenceMs(vad, 'and then')).toBe(771);
    expect(endOfTurnSilenceMs(ai, 'Thanks, that is all.')).toBe(386);
    expect(endOfTurnSilenceMs(ai, 'I need to talk to')).toBe(1542);
    expect(endOfTurnSilenceMs(ai, 'my name is Anna')).toBe(771);
    expect(endOfTurnSilenceMs({ endpointType: 'ai', endpointSensitivity: 5 }, 'Done.')).toBe(250);
    expect(endOfTurnSilenceMs({ endpointType: 'ai', endpointSensitivity: 0 }, 'because')).toBe(2400);
  });
});

describe('barge-in', () => {
  const policy = { allowInterruptions: true, interruptSensitivity: 0.5, minInterruptWords: null };

  it('interrupts once the caller has spoken for the time the sensitivity asks', () => {
    expect(minVoicedMs(0.5)).toBe(150);
    expect(minVoicedMs(0)).toBe(240);
    expect(minVoicedMs(5)).toBe(76);
    expect(shouldInterrupt(policy, { voicedMs: 140, words: 0 })).toBe(false);
    expect(shouldInterrupt(policy, { voicedMs: 150, words: 0 })).toBe(true);
  });

  it('with min words, interrupts only on that many words, however long the voice', () => {
    const words = { ...policy, minInterruptWords: 3 };
    expect(shouldInterrupt(words, { voicedMs: 2000, words: 1 })).toBe(false);
    expect(shouldInterrupt(words, { voicedMs: 100, words: 3 })).toBe(true);
    expect(wordCount('uh-huh')).toBe(1);
    expect(wordCount('wait, stop — please')).toBe(3);
  });

  it('never interrupts when interruptions are off', () => {
    expect(shouldInterrupt({ ...policy, allowInterruptions: false }, { voicedMs: 5000, words: 20 })).toBe(false);
  });
});

describe('silence', () => {
  const policy = { reengagementMs: 10_000, maxSilenceMs: 25_000 };

  it('re-engages an interval after anyone last spoke, and ends an interval after the caller last spoke', () => {
    expect(nextSilenceAction(policy, { callerSpokeAt: 0, anyoneSpokeAt: 0 })).toEqual({ action: 'reengage', at: 10_000 });
    expect(nextSilenceAction(policy, { callerSpokeAt: 0, anyoneSpokeAt: 12_000 })).toEqual({ action: 'reengage', at: 22_000 });
    expect(nextSilenceAction(policy, { callerSpokeAt: 0, anyoneSpokeAt: 22_000 })).toEqual({ action: 'end', at: 25_000 });
  });
});
