import { describe, expect, it } from 'vitest';
import { SpeechHandle, SpeechInterruptedError } from '../../src/voice/speech.ts';

/** A sentence of `frames` 20 ms frames, all queued, sent from `firstDueAt` on. */
function sent(handle: SpeechHandle, text: string, frames: number, firstDueAt: number) {
  const track = handle.addSentence(text);
  for (let i = 0; i < frames; i++) {
    track.queuedMs += 20;
    handle.frameSent(track, firstDueAt + 20 * i);
  }
  track.complete = true;
  return track;
}

describe('SpeechHandle', () => {
  it('hears whole sentences whose mark came back, and the words of the cut one in proportion to its audio played', () => {
    const handle = new SpeechHandle('u1');
    const first = sent(handle, 'Our opening hours are nine to five.', 50, 0);
    sent(handle, 'On Saturdays we open at ten and close at two.', 100, 1000);
    sent(handle, 'We are closed on Sundays.', 50, 3000);
    handle.markHeard(first.mark);
    // 40 % of the second sentence's two seconds played: 4 of its 10 words.
    handle.interrupt(1800);
    expect(handle.heardText(5000)).toBe('Our opening hours are nine to five. On Saturdays we open');
    expect(handle.signal.aborted).toBe(true);
    expect(handle.signal.reason).toBeInstanceOf(SpeechInterruptedError);
  });

  it('ignores marks coming back after an interruption: a clear returns them for audio never played', () => {
    const handle = new SpeechHandle('u2');
    const first = sent(handle, 'One two three four.', 50, 0);
    handle.interrupt(250);
    handle.markHeard(first.mark);
    expect(handle.heardText(10_000)).toBe('One');
  });

  it('hears nothing when interrupted before any audio went out', () => {
    const handle = new SpeechHandle('u3');
    handle.addSentence('Never said.');
    handle.interrupt(0);
    expect(handle.heardText(100)).toBe('');
  });

  it('finishes once sealed and every mark came back', async () => {
    const handle = new SpeechHandle('u4');
    const a = sent(handle, 'A.', 5, 0);
    const b = sent(handle, 'B.', 5, 100);
    let finished = false;
    void handle.finished().then(() => { finished = true; });
    handle.markHeard(a.mark);
    handle.seal();
    await Promise.resolve();
    expect(finished).toBe(false);
    expect(handle.markHeard(b.mark)).toBe(true);
    expect(handle.markHeard('other.1')).toBe(false);
    await handle.finished();
    expect(handle.heardText(0)).toBe('A. B.');
  });

  it('counts a sentence whose audio has all played as heard when its mark was lost', () => {
    const handle = new SpeechHandle('u5');
    sent(handle, 'Lost mark.', 10, 0);
    sent(handle, 'Half of this sentence.', 10, 200);
    handle.abandon(new Error('socket closed'));
    expect(handle.heardText(300)).toBe('Lost mark. Half of');
  });
});
