import { isDeepStrictEqual } from 'node:util';
import type { ChatEvent, ChatRequest, LanguageModel } from '../providers/llm/types.ts';

/**
 * A model request sent before its turn is sure, so that the model's latency overlaps the work that makes the
 * turn sure (a chat message's statement: the charge, the history read in the same snapshot). It is held: its
 * answer is read no further than its first event until the turn asks the model the very same request, and is
 * then that request's answer; a turn that asks something else, or never comes, abandons it through its signal,
 * unread. Nothing of a held answer reaches anyone and no tool runs on it before it is taken.
 */
export class EarlyModelRequest {
  private readonly request: Omit<ChatRequest, 'signal'>;
  private readonly stop = new AbortController();
  private readonly answer: AsyncIterator<ChatEvent>;
  /** The first event's read, begun at once: it is what sends the request. */
  private readonly first: Promise<IteratorResult<ChatEvent>>;
  private state: 'held' | 'taken' | 'abandoned' = 'held';

  /** Sends `request` now; `signal` (the client went away) stops it as it stops the turn. */
  constructor(model: LanguageModel, request: Omit<ChatRequest, 'signal'>, signal: AbortSignal) {
    this.request = request;
    this.answer = model.stream({ ...request, signal: AbortSignal.any([signal, this.stop.signal]) })[Symbol.asyncIterator]();
    this.first = this.answer.next();
    // A failure is the turn's to see once it takes the answer; one abandoned is nobody's.
    this.first.catch(() => undefined);
  }

  /** Whether the turn took it ('taken'), did not want it ('abandoned'), or has not asked yet ('held'). */
  get outcome(): 'held' | 'taken' | 'abandoned' {
    return this.state;
  }

  /** `model`, but that its first request, when it is the one sent early, is answered by this one. */
  serving(model: LanguageModel): LanguageModel {
    return { stream: (request) => this.take(request) ?? model.stream(request) };
  }

  /** Stops the request if no turn took it. */
  abandon(): void {
    if (this.state !== 'held') return;
    this.state = 'abandoned';
    this.stop.abort(new Error('The early model request was not wanted.'));
  }

  private take(request: ChatRequest): AsyncIterable<ChatEvent> | undefined {
    const { signal, ...asked } = request;
    if (this.state !== 'held' || !isDeepStrictEqual(asked, this.request)) {
      this.abandon();
      return undefined;
    }
    this.state = 'taken';
    // The turn's own signal stops what it took, as it would stop its own request.
    const stopOnTurn = () => this.stop.abort(signal?.reason);
    signal?.addEventListener('abort', stopOnTurn, { once: true });
    return this.replay(() => signal?.removeEventListener('abort', stopOnTurn));
  }

  private async *replay(done: () => void): AsyncGenerator<ChatEvent> {
    try {
      for (let next = await this.first; !next.done; next = await this.answer.next()) yield next.value;
    } finally {
      done();
      // A turn that leaves early ends the request, as leaving the provider's own stream does.
      await this.answer.return?.();
    }
  }
}
