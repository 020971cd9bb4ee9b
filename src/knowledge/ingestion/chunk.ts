import type { Section } from './extract.ts';

export interface ChunkMetadata {
  url?: string;
  page?: number;
  heading?: string;
}

export interface Chunk {
  content: string;
  tokenCount: number;
  metadata: ChunkMetadata;
}

export interface ChunkOptions {
  /** A chunk is closed once it reaches this many tokens... */
  targetTokens: number;
  /** ...and never passes this many. */
  maxTokens: number;
  /** Tokens of the previous chunk's end repeated at the start of the next, so no fact is cut in two. */
  overlapTokens: number;
}

export const defaultChunkOptions: ChunkOptions = { targetTokens: 500, maxTokens: 800, overlapTokens: 80 };

const tokenPattern = /\p{L}+|\p{N}+|[^\s\p{L}\p{N}]/gu;

/**
 * An estimate of the tokens of a BPE tokenizer: one per word, number or punctuation mark. Close enough for
 * English and other Latin-script text to size chunks; no embedding model's tokenizer is bundled.
 */
export function countTokens(text: string): number {
  return text.match(tokenPattern)?.length ?? 0;
}

/** The last `tokens` tokens of a text, cut at a word boundary. */
function tail(text: string, tokens: number): string {
  if (tokens <= 0) return '';
  const words = text.split(/\s+/);
  const kept: string[] = [];
  let count = 0;
  for (let index = words.length - 1; index >= 0 && count < tokens; index--) {
    const word = words[index] ?? '';
    kept.unshift(word);
    count += countTokens(word);
  }
  return kept.join(' ');
}

/**
 * Splits a block that is too long on its own: by sentence, then by word. Counts are kept as running sums
 * (no token spans whitespace, so a join's count is the sum of its parts'), keeping it linear: recounting the
 * growing piece at every word took 20 s for 5 MB of one-letter words, on the thread that serves requests.
 */
function splitBlock(block: string, maxTokens: number): string[] {
  if (countTokens(block) <= maxTokens) return [block];
  const sentences = block.split(/(?<=[.!?。])\s+|\n+/);
  const parts: string[] = [];
  let current = '';
  let currentTokens = 0;
  for (const sentence of sentences) {
    const sentenceTokens = countTokens(sentence);
    if (sentenceTokens > maxTokens) {
      if (current) parts.push(current);
      current = '';
      currentTokens = 0;
      const words = sentence.split(/\s+/);
      let piece: string[] = [];
      let pieceTokens = 0;
      for (const word of words) {
        piece.push(word);
        pieceTokens += countTokens(word);
        if (pieceTokens >= maxTokens) {
          parts.push(piece.join(' '));
          piece = [];
          pieceTokens = 0;
        }
      }
      if (piece.length > 0) parts.push(piece.join(' '));
      continue;
    }
    if (currentTokens + sentenceTokens > maxTokens) {
      parts.push(current);
      current = sentence;
      currentTokens = sentenceTokens;
    } else {
      current = current ? `${current} ${sentence}` : sentence;
      currentTokens += sentenceTokens;
    }
  }
  if (current) parts.push(current);
  return parts;
}

/**
 * Chunks by structure first (a chunk never spans two sections, so its heading, page and URL are its own),
 * then by tokens within a section: paragraphs are packed up to the target size, with an overlap.
 * The heading leads each chunk's text, since a paragraph alone often does not name its subject.
 */
export function chunkSections(sections: Section[], options: ChunkOptions = defaultChunkOptions): Chunk[] {
  const chunks: Chunk[] = [];
  for (const section of sections) {
    const metadata: ChunkMetadata = {
      ...(section.url ? { url: section.url } : {}),
      ...(section.page ? { page: section.page } : {}),
      ...(section.heading ? { heading: section.heading } : {}),
    };
    const prefix = section.heading && !section.text.startsWith(section.heading) ? `${section.heading}\n\n` : '';
    const budget = options.maxTokens - countTokens(prefix);
    const blocks = section.text.split(/\n{2,}/).flatMap((block) => splitBlock(block.trim(), Math.max(budget - options.overlapTokens, 50))).filter(Boolean);
    let current: string[] = [];
    let currentTokens = 0;
    let carried = false;
    const flush = () => {
      if (current.length === 0 || (carried && current.length === 1)) return;
      const content = prefix + current.join('\n\n');
      chunks.push({ content, tokenCount: countTokens(content), metadata });
      const overlap = tail(current.join('\n\n'), options.overlapTokens);
      current = overlap ? [overlap] : [];
      currentTokens = countTokens(overlap);
      carried = current.length > 0;
    };
    for (const block of blocks) {
      const tokens = countTokens(block);
      if (currentTokens + tokens > budget) flush();
      current.push(block);
      currentTokens += tokens;
      carried = carried && current.length === 1;
      if (currentTokens >= options.targetTokens) flush();
    }
    flush();
  }
  return chunks;
}
