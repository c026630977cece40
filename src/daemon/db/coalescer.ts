/** One item's outcome of a flush: its value, or the error that item alone gets. */
export type Settled<R> = { readonly ok: true; readonly value: R } | { readonly ok: false; readonly error: unknown };

export interface CoalescerOptions {
  /** Flushes at once; what arrives while that many are in flight waits for the next one. */
  readonly inFlight: number;
  /** Items one flush takes at most. */
  readonly maxBatch: number;
  /**
   * While a flush is in flight, another starts only once this many items wait (default 1): a small flush
   * beside a running one costs its fixed share (a round trip, a commit) for little, and under load the
   * items are better off in the next full one.
   */
  readonly minBatchWhileBusy?: number;
  /**
   * An error that the next flush would meet again (an unreachable database): when an item of a flush
   * fails with one, the items waiting then fail with it too, at once, instead of each waiting for a flush
   * of its own to fail the same way later.
   */
  readonly failsWaiting?: (error: unknown) => boolean;
}

interface Waiting<T, R> {
  readonly item: T;
  readonly resolve: (value: R) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Hands work that arrives while earlier work is in flight to the next flush together, as PostgreSQL's
 * group commit does with commits: under load many callers share one statement (one round trip, one
 * commit), while a lone caller is flushed at once and waits for nothing (a flush in flight finishes in
 * its own time, and the items waiting then go at once). The flush answers each item; a
 * flush that fails as a whole fails every item it took.
 */
export class Coalescer<T, R> {
  private readonly waiting: Waiting<T, R>[] = [];
  private flushing = 0;

  constructor(
    private readonly flush: (items: readonly T[]) => Promise<readonly Settled<R>[]>,
    private readonly options: CoalescerOptions,
  ) {}

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.pump();
    });
  }

  /** Flushes in flight, and items waiting for one (for tests and shutdown). */
  get load(): { readonly flushing: number; readonly waiting: number } {
    return { flushing: this.flushing, waiting: this.waiting.length };
  }

  private pump(): void {
    while (
      this.flushing < this.options.inFlight &&
      this.waiting.length >= (this.flushing === 0 ? 1 : (this.options.minBatchWhileBusy ?? 1))
    ) {
      const batch = this.waiting.splice(0, this.options.maxBatch);
      this.flushing += 1;
      void this.run(batch);
    }
  }

  private async run(batch: readonly Waiting<T, R>[]): Promise<void> {
    try {
      const settled = await this.flush(batch.map((waiting) => waiting.item));
      batch.forEach((waiting, i) => {
        const outcome = settled[i];
        if (!outcome) waiting.reject(new Error('the flush answered fewer items than it took'));
        else if (outcome.ok) waiting.resolve(outcome.value);
        else {
          waiting.reject(outcome.error);
          this.failWaiting(outcome.error);
        }
      });
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
      this.failWaiting(error);
    } finally {
      this.flushing -= 1;
      this.pump();
    }
  }

  private failWaiting(error: unknown): void {
    if (!this.options.failsWaiting?.(error)) return;
    for (const waiting of this.waiting.splice(0)) waiting.reject(error);
  }
}
