import { MAX_EVENTS_PER_BATCH } from '../shared/api/run-callbacks.js';
import type { RunCallbacks, WorkerEvent } from './callbacks.js';

/** How long an event may wait before it is sent while a step is still running (a live view stays live). */
const FLUSH_AFTER_MS = 250;

/**
 * The worker-side events of one attempt of one run. Each gets the next `worker_seq` (from 1 per attempt),
 * so a batch sent again after a lost answer is recognised by the daemon and adds nothing. Events are sent
 * in batches: shortly after they are made, and whenever the executor flushes (at least at every step's
 * end). One batch is in flight at a time, so the daemon receives them in order.
 */
export class EventBuffer {
  #nextSeq = 1;
  #pending: WorkerEvent[] = [];
  #sending: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;
  #failure: unknown;
  #closed = false;

  constructor(private readonly callbacks: Pick<RunCallbacks, 'postEvents'>) {}

  emit(type: string, data: Record<string, unknown>, stepId?: string): void {
    if (this.#closed) return;
    this.#pending.push({
      worker_seq: this.#nextSeq++,
      type,
      ts: new Date().toISOString(),
      data,
      ...(stepId ? { step_id: stepId } : {}),
    });
    this.#timer ??= setTimeout(() => void this.flush().catch(() => {}), FLUSH_AFTER_MS);
  }

  /** Sends everything made so far; rejects with the first failure of any batch (409 run_not_held included). */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const batches: WorkerEvent[][] = [];
    while (this.#pending.length > 0) batches.push(this.#pending.splice(0, MAX_EVENTS_PER_BATCH));
    this.#sending = this.#sending.then(async () => {
      for (const batch of batches) {
        if (this.#failure !== undefined) return;
        try {
          await this.callbacks.postEvents(batch);
        } catch (error) {
          this.#failure = error;
        }
      }
    });
    return this.#sending.then(() => {
      if (this.#failure !== undefined) throw this.#failure;
    });
  }

  /** The run's execution is over: what a handler still says (after an abort, say) is dropped. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
