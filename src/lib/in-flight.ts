/**
 * Work a process starts without waiting for it (a request that tells Temporal something and answers at once),
 * kept so that the process lets it finish before it closes what that work uses: the Temporal client's gRPC
 * channel throws, from a timer, at a call still retrying once it is closed.
 */
export class InFlight {
  private readonly pending = new Set<Promise<unknown>>();

  /** `work`, held until it settles; what it answers or throws is the caller's to handle. */
  track<T>(work: Promise<T>): Promise<T> {
    this.pending.add(work);
    const forget = () => this.pending.delete(work);
    work.then(forget, forget);
    return work;
  }

  /** Resolves once all the work held has settled, or at `deadline` (epoch milliseconds), whichever comes first. */
  async settled(deadline: number): Promise<void> {
    if (this.pending.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.max(deadline - Date.now(), 0));
    });
    await Promise.race([Promise.allSettled([...this.pending]), late]);
    clearTimeout(timer);
  }
}
