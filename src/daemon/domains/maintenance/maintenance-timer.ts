import type { Logger } from '../../logging/logger.js';
import type { MaintenanceRunner } from './maintenance-runner.js';
import type { PassLock } from './pass-lock.js';

/**
 * The instance's own maintenance timer: every interval, a pass of every job behind the pass lock (one
 * instance at a time; the others skip that interval). The next pass is scheduled when one ends, so
 * passes never overlap here; a pass that fails (the database down) is logged and the next tries again.
 */
export class MaintenanceTimer {
  #timer: NodeJS.Timeout | undefined;
  #stopped = true;
  #pass: Promise<unknown> | undefined;

  constructor(
    private readonly runner: MaintenanceRunner,
    private readonly lock: PassLock,
    private readonly log: Logger,
    readonly intervalSeconds: number,
  ) {}

  /** Whether the timer runs (started and not stopped). */
  get started(): boolean {
    return !this.#stopped;
  }

  start(): void {
    this.#stopped = false;
    this.#schedule();
  }

  /** Stops the timer and waits for a pass under way. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#pass;
  }

  /** One timer pass now: `ran` false when another instance held the lock. Throws what the pass threw. */
  async passOnce(): Promise<{ ran: boolean }> {
    const result = await this.lock.tryRun(() => this.runner.runAll('timer'));
    if (!result.ran) this.log.debug('another instance is running the maintenance pass; skipped');
    return { ran: result.ran };
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#pass = this.#tick().finally(() => this.#schedule());
    }, this.intervalSeconds * 1000);
    this.#timer.unref();
  }

  async #tick(): Promise<void> {
    try {
      await this.passOnce();
    } catch (error) {
      this.log.warn({ err: error }, 'the maintenance pass failed; trying again next interval');
    }
  }
}
