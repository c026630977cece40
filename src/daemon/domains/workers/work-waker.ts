import { RUN_CONTROL_CHANNEL, RUNS_QUEUED_CHANNEL } from '../../db/channels.js';
import type { Database, Listening } from '../../db/database.js';

/**
 * Why a waiter was woken: `work`, a run became claimable (row locks decide who gets it); `control`, one
 * of its worker's runs was cancelled, paused or resumed, or notifications may have been lost (the
 * listener reconnected), or the daemon is draining: news for the worker whatever the rows' stamps say.
 */
export type WakeReason = 'work' | 'control';

/** A heartbeat waiting for something to tell its worker. */
export interface Waiter {
  /** Settles with the reason when woken. */
  readonly woken: Promise<WakeReason>;
  /** Whether it was woken since it was made: a notification that came before the wait began is not lost. */
  readonly wasWoken: boolean;
  /** Why, when it was. */
  readonly wokenFor: WakeReason | undefined;
  /** No longer interested; always call it. */
  cancel(): void;
}

interface Entry {
  readonly workerId: string;
  /** Wants to hear of any queued run (it has free slots and is not draining). */
  readonly wantsWork: boolean;
  woken: WakeReason | undefined;
  wake: (reason: WakeReason) => void;
}

/**
 * Wakes the heartbeats of this instance that wait for work, holding no database connection (PGlite has
 * one): LISTENs on the queue's channel (any run became claimable: every waiter that can take work
 * tries, and row locks decide who gets it) and the control channel (the payload is the holding worker's
 * id: that worker's waiters). A listener (re)connection wakes everyone, since notifications may have been
 * lost while it was away; `drain` (shutdown) wakes everyone and answers every later wait at once.
 */
export class WorkWaker {
  readonly #waiters = new Set<Entry>();
  #listeners: Listening[] = [];
  #draining = false;

  constructor(private readonly listen: Database['listen']) {}

  get draining(): boolean {
    return this.#draining;
  }

  start(): void {
    this.#listeners = [
      this.listen(RUNS_QUEUED_CHANNEL, (signal) =>
        signal === 'connected' ? this.#wake(() => true, 'control') : this.#wake((entry) => entry.wantsWork, 'work'),
      ),
      this.listen(RUN_CONTROL_CHANNEL, (signal, payload) =>
        this.#wake(signal === 'connected' ? () => true : (entry) => entry.workerId === payload, 'control'),
      ),
    ];
  }

  /** Wakes every waiter now and every later one at once: the daemon is shutting down. */
  drain(): void {
    this.#draining = true;
    this.#wake(() => true, 'control');
  }

  async stop(): Promise<void> {
    this.drain();
    const listeners = this.#listeners;
    this.#listeners = [];
    await Promise.all(listeners.map((listener) => listener.stop()));
  }

  /** Starts waiting for `workerId`: made before the work it guards is read, so nothing slips between. */
  waiter(workerId: string, wantsWork: boolean): Waiter {
    let wake: (reason: WakeReason) => void = () => {};
    const woken = new Promise<WakeReason>((resolve) => (wake = resolve));
    const entry: Entry = { workerId, wantsWork, woken: this.#draining ? 'control' : undefined, wake };
    if (this.#draining) wake('control');
    else this.#waiters.add(entry);
    return {
      woken,
      get wasWoken() {
        return entry.woken !== undefined;
      },
      get wokenFor() {
        return entry.woken;
      },
      cancel: () => this.#waiters.delete(entry),
    };
  }

  #wake(which: (entry: Entry) => boolean, reason: WakeReason): void {
    for (const entry of this.#waiters) {
      if (!which(entry)) continue;
      entry.woken = reason;
      entry.wake(reason);
      this.#waiters.delete(entry);
    }
  }
}
