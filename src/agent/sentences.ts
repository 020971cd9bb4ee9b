/**
 * Cuts a reply into sentences as it streams in, so speech can start on the first sentence while the model is
 * still writing the rest. It holds the reply's text (`text`), and each pushed piece is scanned once, character
 * by character, without copies: only a sentence handed out is sliced from the text.
 *
 * A sentence ends at `.`, `!`, `?` or an ellipsis (with any closing quotes or brackets after them) once the
 * next word shows it is not one of these:
 * - a decimal or a name with dots (`3.50`, `example.com`): no space follows;
 * - an abbreviation or initial before a name (`Dr. Smith`, `e.g. this`, `J. R. R. Tolkien`), or a list
 *   number (`1. Red`);
 * - an ellipsis inside a sentence (`well... maybe`): only a capital after it starts a new sentence;
 * - any stop followed by a lower-case word (`approx. five`), which no sentence starts with.
 * A line break ends a sentence too (list items, paragraphs), and text without any of these is cut at the last
 * space before `maxLength` characters, so a run-on reply still reaches speech in bounded pieces.
 *
 * With `firstClause`, the first piece ends at its first clause boundary (`,`, `;` or `:` before a space) when
 * there is one: a voice starts on "Sure," while the model is still writing the rest of the sentence, and a
 * synthesizer that makes a sentence whole before its first sound (Piper) makes a short one sooner.
 */
export class SentenceSplitter {
  private all = '';
  /** Where the sentence being scanned began. */
  private sentenceStart = 0;
  /** Where the next sentence handed out begins. */
  private handedOut = 0;
  /** Ends of sentences found and not yet handed out, from `readIndex` on. */
  private readonly ends: number[] = [];
  private readIndex = 0;
  private state: 'text' | 'stop' | 'space' = 'text';
  /** The run of stop characters (and closing quotes) a sentence may end with. */
  private stopStart = 0;
  private stopEnd = 0;
  private readonly maxLength: number;
  /** Cut the first piece at a clause boundary; off once a piece has ended. */
  private clauseCut: boolean;
  /** Where a clause mark just scanned ends, if the next character may make it a boundary. */
  private clauseEnd: number | undefined;

  constructor(options: { maxLength?: number; firstClause?: boolean } = {}) {
    this.maxLength = options.maxLength ?? 200;
    this.clauseCut = options.firstClause === true;
  }

  /** Everything pushed so far. */
  get text(): string {
    return this.all;
  }

  /** Appends the next piece of the reply. */
  push(piece: string): void {
    const offset = this.all.length;
    this.all += piece;
    for (let j = 0; j < piece.length; j++) this.scan(piece.charCodeAt(j), offset + j);
  }

  /** Marks the end of the reply: whatever is left becomes the last sentence. */
  end(): void {
    this.close(this.all.length);
    this.state = 'text';
  }

  /** The next complete sentence, trimmed; undefined until more text (or the end) completes one. */
  next(): string | undefined {
    while (this.readIndex < this.ends.length) {
      const end = this.ends[this.readIndex++] ?? this.all.length;
      const sentence = this.all.slice(this.handedOut, end).trim();
      this.handedOut = end;
      if (sentence) return sentence;
    }
    this.ends.length = 0;
    this.readIndex = 0;
    return undefined;
  }

  private close(end: number): void {
    if (end <= this.sentenceStart) return;
    this.ends.push(end);
    this.sentenceStart = end;
    this.clauseCut = false;
  }

  private scan(code: number, index: number): void {
    if (index - this.sentenceStart >= this.maxLength) this.cut(index);
    if (this.clauseCut) this.scanClause(code, index);
    switch (this.state) {
      case 'text':
        if (code === NEWLINE) this.close(index);
        else if (isStop(code)) this.startStop(index);
        return;
      case 'stop':
        if (isStop(code) || isCloser(code)) {
          this.stopEnd = index + 1;
        } else if (code === NEWLINE) {
          this.close(this.stopEnd);
          this.state = 'text';
        } else {
          this.state = isSpace(code) ? 'space' : 'text';
        }
        return;
      case 'space':
        if (isSpace(code)) return;
        if (code === NEWLINE || this.endsSentence(code)) this.close(this.stopEnd);
        this.state = 'text';
        this.scan(code, index);
        return;
    }
  }

  /** A clause mark followed by a space ends the first piece, if a word came before it (not the comma of `1,000`). */
  private scanClause(code: number, index: number): void {
    if (this.clauseEnd === index && isSpace(code) && /[\p{L}\p{N}]/u.test(this.all.slice(this.sentenceStart, index))) {
      this.clauseEnd = undefined;
      this.close(index);
      return;
    }
    this.clauseEnd = code === 0x2c || code === 0x3b || code === 0x3a ? index + 1 : undefined;
  }

  private startStop(index: number): void {
    this.state = 'stop';
    this.stopStart = index;
    this.stopEnd = index + 1;
  }

  /** Whether the stop run just scanned ends its sentence, now that the next word starts with `next`. */
  private endsSentence(next: number): boolean {
    const nextChar = String.fromCharCode(next);
    if (LOWER.test(nextChar)) return false;
    const stops = this.all.slice(this.stopStart, this.stopEnd);
    if (stops.includes('..') || stops.includes('…')) return UPPER.test(nextChar);
    if (!stops.startsWith('.')) return true;
    const before = this.all.slice(this.sentenceStart, this.stopStart);
    const word = /[^\s([{"'“‘]*$/.exec(before)?.[0] ?? '';
    if (TITLES.has(word.toLowerCase()) || INITIALS.test(word)) return false;
    // A number alone at the start of a sentence is a list item's.
    return !(DIGITS.test(word) && before.trim() === word);
  }

  /** Ends the sentence at the last space before `index`, or at `index` itself when there is none. */
  private cut(index: number): void {
    const space = this.all.lastIndexOf(' ', index - 1);
    this.close(space > this.sentenceStart ? space + 1 : index);
    this.state = 'text';
  }
}

const NEWLINE = 0x0a;
const LOWER = /\p{Ll}/u;
const UPPER = /\p{Lu}/u;
const DIGITS = /^\d+$/;
// One letter (not the pronoun I), or letters joined by dots: J, U.S, e.g, i.e.
const INITIALS = /^(?:[A-HJ-Z]|\p{L}(?:\.\p{L})+)$/u;
// Words that stand before a name with a dot after them.
const TITLES = new Set(['mr', 'mrs', 'ms', 'dr', 'prof', 'sr', 'jr', 'st', 'mt', 'vs']);

function isStop(code: number): boolean {
  // . ! ? …
  return code === 0x2e || code === 0x21 || code === 0x3f || code === 0x2026;
}

function isCloser(code: number): boolean {
  // " ' ) ] ” ’ »
  return code === 0x22 || code === 0x27 || code === 0x29 || code === 0x5d || code === 0x201d || code === 0x2019 || code === 0xbb;
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0d || code === 0xa0;
}
