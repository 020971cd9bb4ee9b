/**
 * Cuts a stream of tokens into sentences as soon as each one ends, so speech synthesis can start on the
 * first sentence while the model is still writing the rest.
 */
export class SentenceBuffer {
  private pending = '';

  /** Adds text and returns the sentences it completed. */
  push(text: string): string[] {
    this.pending += text;
    const sentences: string[] = [];
    // A sentence ends at . ! ? or … followed by whitespace, or at a line break; "3.5" and "e.g." mid-token do not end one.
    const boundary = /([.!?…]+["')\]]*)\s+|\n+/g;
    let start = 0;
    let match: RegExpExecArray | null;
    while ((match = boundary.exec(this.pending)) !== null) {
      const end = match.index + (match[1]?.length ?? 0);
      const sentence = this.pending.slice(start, end).trim();
      if (sentence) sentences.push(sentence);
      start = match.index + match[0].length;
    }
    this.pending = this.pending.slice(start);
    return sentences;
  }

  /** The unfinished rest, at the end of the stream. */
  flush(): string | undefined {
    const rest = this.pending.trim();
    this.pending = '';
    return rest || undefined;
  }
}
