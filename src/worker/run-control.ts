import type { StopReason } from './handlers/types.js';

/**
 * What the heartbeat's answers (and the worker's stop) tell one run's execution: stop now (the handler's
 * signal aborts, its reason saying why) and hold before the next step (pause) until let go.
 */
export class RunControl {
  readonly #abort = new AbortController();
  #paused: boolean;
  #wake: (() => void)[] = [];
  /** Set once the first step run of this attempt was created: from then on a hand-back fails the run. */
  stepStarted = false;
  /**
   * Set while the run only waits for a child run (`flow.run`): it takes no slot then, so a worker whose
   * slots all hold parents still claims their children instead of waiting on itself for ever.
   */
  waitingOnChild = false;

  constructor(paused = false) {
    this.#paused = paused;
  }

  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  get stopReason(): StopReason | undefined {
    return this.#abort.signal.aborted ? (this.#abort.signal.reason as StopReason) : undefined;
  }

  get paused(): boolean {
    return this.#paused;
  }

  /** The first reason given wins: a run cancelled and then lost is still the cancelled one. */
  stop(reason: StopReason): void {
    if (!this.#abort.signal.aborted) this.#abort.abort(reason);
    this.#release();
  }

  setPaused(paused: boolean): void {
    this.#paused = paused;
    if (!paused) this.#release();
  }

  /** Resolves when the run may start its next step, or is stopped (check `stopReason`). */
  async whenRunnable(): Promise<void> {
    while (this.#paused && !this.#abort.signal.aborted) await new Promise<void>((resolve) => this.#wake.push(resolve));
  }

  /** Lets the executor re-check a state it may have been told about late (a paused run refusing a step). */
  nudge(): void {
    this.#release();
  }

  #release(): void {
    const waiting = this.#wake;
    this.#wake = [];
    for (const resolve of waiting) resolve();
  }
}
