import { describe, expect, it } from 'vitest';
import { SentenceSplitter } from '../../src/agent/sentences.ts';

/** The sentences of `text` streamed in pieces of `size` characters, taken after every piece and at the end. */
function split(text: string, size = text.length, maxLength?: number): string[] {
  const splitter = new SentenceSplitter(maxLength === undefined ? {} : { maxLength });
  const sentences: string[] = [];
  const drain = () => {
    for (let sentence = splitter.next(); sentence !== undefined; sentence = splitter.next()) sentences.push(sentence);
  };
  for (let i = 0; i < text.length; i += size) {
    splitter.push(text.slice(i, i + size));
    drain();
  }
  splitter.end();
  drain();
  expect(splitter.text).toBe(text);
  return sentences;
}

describe('SentenceSplitter', () => {
  it('ends sentences at . ! and ? with their closing quotes, however the text is streamed', () => {
    const text = 'Hello there! Is your order late? He said "it shipped." Then it (really) did.';
    const expected = ['Hello there!', 'Is your order late?', 'He said "it shipped."', 'Then it (really) did.'];
    for (const size of [1, 2, 3, 5, 8, text.length]) expect(split(text, size)).toEqual(expected);
  });

  it('hands out a sentence only once the next word shows it has ended', () => {
    const splitter = new SentenceSplitter();
    splitter.push('It costs 3.');
    expect(splitter.next()).toBeUndefined();
    splitter.push(' ');
    expect(splitter.next()).toBeUndefined();
    splitter.push('Pay');
    expect(splitter.next()).toBe('It costs 3.');
    expect(splitter.next()).toBeUndefined();
    splitter.end();
    expect(splitter.next()).toBe('Pay');
    expect(splitter.next()).toBeUndefined();
  });

  it('does not end a sentence at a decimal point or a dotted name', () => {
    for (const size of [1, 4, 100]) {
      expect(split('The total is 3.50 dollars, or 2.99 euros. See example.com for more.', size))
        .toEqual(['The total is 3.50 dollars, or 2.99 euros.', 'See example.com for more.']);
    }
  });

  it('keeps abbreviations, initials and list numbers inside their sentence', () => {
    expect(split('Dr. Smith will call Mr. Brown at 5 p.m. today. Then St. Louis.', 3))
      .toEqual(['Dr. Smith will call Mr. Brown at 5 p.m. today.', 'Then St. Louis.']);
    expect(split('Read J. R. R. Tolkien, e.g. The Hobbit. It is good.'))
      .toEqual(['Read J. R. R. Tolkien, e.g. The Hobbit.', 'It is good.']);
    expect(split('We have approx. five left. Try again.')).toEqual(['We have approx. five left.', 'Try again.']);
    expect(split('Choose:\n1. Red\n2. Blue')).toEqual(['Choose:', '1. Red', '2. Blue']);
  });

  it('reads an ellipsis as a pause unless a capital follows it', () => {
    expect(split('Well... let me see. Hmm… Okay, found it.', 2)).toEqual(['Well... let me see.', 'Hmm…', 'Okay, found it.']);
    expect(split('Wait... What?! No way...')).toEqual(['Wait...', 'What?!', 'No way...']);
  });

  it('ends a sentence at a line break', () => {
    expect(split('First line\nSecond line\n\nThird.')).toEqual(['First line', 'Second line', 'Third.']);
  });

  it('cuts text without punctuation at the last space before the bound', () => {
    const words = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
    const pieces = split(words, 7, 50);
    expect(pieces.length).toBeGreaterThan(5);
    for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(50);
    expect(pieces.join(' ')).toBe(words);
    expect(pieces.every((piece) => /^word\d+( word\d+)*$/.test(piece))).toBe(true);
  });

  it('cuts a run without spaces at the bound itself', () => {
    expect(split('x'.repeat(25), 4, 10)).toEqual(['x'.repeat(10), 'x'.repeat(10), 'x'.repeat(5)]);
  });

  it('hands out nothing for empty or blank text', () => {
    expect(split('')).toEqual([]);
    expect(split('  \n ')).toEqual([]);
  });

  it('with firstClause, ends the first piece at its first clause boundary, then splits by sentences', () => {
    const firstClause = (text: string, size: number) => {
      const splitter = new SentenceSplitter({ firstClause: true });
      const out: string[] = [];
      for (let at = 0; at < text.length; at += size) {
        splitter.push(text.slice(at, at + size));
        for (let piece = splitter.next(); piece !== undefined; piece = splitter.next()) out.push(piece);
      }
      splitter.end();
      for (let piece = splitter.next(); piece !== undefined; piece = splitter.next()) out.push(piece);
      return out;
    };
    for (const size of [1, 3, 100]) {
      expect(firstClause('Sure, I can help with that. Is there anything else, perhaps?', size)).toEqual(['Sure,', 'I can help with that.', 'Is there anything else, perhaps?']);
      expect(firstClause('We have 1,000 seats; all free.', size)).toEqual(['We have 1,000 seats;', 'all free.']);
      expect(firstClause('Yes. Okay, then.', size)).toEqual(['Yes.', 'Okay, then.']);
      expect(firstClause('Note: it is late.', size)).toEqual(['Note:', 'it is late.']);
    }
  });
});
