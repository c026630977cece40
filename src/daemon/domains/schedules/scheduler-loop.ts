import type { Logger } from '../../logging/logger.js';
import { PASS_LIMIT, type ScheduleFirer } from './schedule-firer.js';
import type { Clock } from './schedules-service.js';
import type { SchedulesRepo } from './schedules-repo.js';

export interface LoopSettings {
  /** SERVICE_SCHEDULER_INTERVAL_MS: the longest sleep between passes. */
  readonly intervalMs: number;
}

/**
 * The embedded scheduler: a pass fires what is due (`ScheduleFirer.fireDue`), then the loop sleeps until
 * the earliest next fire time it can see, at most the interval (a schedule another instance created or
 * changed is seen within it). Every instance may run one: racing passes make one run per due time. A pass
 * that fails (the database down) is logged and the next one tries again. Timers are unref'd.
 */
export class SchedulerLoop {
  #timer: NodeJS.Timeout | undefined;
  #stopped = true;
  #pass: Promise<unknown> | undefined;

  constructor(
    private readonly firer: ScheduleFirer,
    private readonly repo: SchedulesRepo,
    private readonly log: Logger,
    private readonly settings: LoopSettings,
    private readonly now: Clock,
  ) {}

  start(): void {
    this.#stopped = false;
    this.#sleep(0);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#pass;
  }

  #sleep(ms: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#pass = this.#run().then((wait) => this.#sleep(wait));
    }, ms);
    this.#timer.unref();
  }

  /** One pass; answers how long to sleep before the next. */
  async #run(): Promise<number> {
    try {
      const { looked, reports } = await this.firer.fireDue();
      // A schedule whose fire failed (logged) stays due: waiting the interval keeps it from spinning the loop.
      if (reports.length < looked) return this.settings.intervalMs;
      // A full pass left more behind: straight on.
      if (looked >= PASS_LIMIT) return 0;
      const earliest = await this.repo.earliestDue();
      const until = earliest === null ? this.settings.intervalMs : earliest.getTime() - this.now().getTime();
      return Math.max(0, Math.min(this.settings.intervalMs, until));
    } catch (error) {
      this.log.warn({ err: error }, 'the scheduler pass failed; trying again next interval');
      return this.settings.intervalMs;
    }
  }
}
