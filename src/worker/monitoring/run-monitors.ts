import type { MonitorCallbacks } from '../monitor-callbacks.js';

export type ScheduleMode = 'count' | 'duration' | 'until_join';

/** A monitor sampling in the background of a run, beside the steps that follow the one that started it. */
export interface BackgroundMonitor {
  readonly stepId: string;
  readonly mode: ScheduleMode;
  /** Resolves once it has stopped sampling and said its last word (samples flushed, monitors closed). */
  readonly done: Promise<MonitorEnd>;
  /** Stops sampling now (the samples taken are kept) and resolves as `done` does. */
  stop(why: string): Promise<MonitorEnd>;
}

export interface MonitorEnd {
  readonly step_id: string;
  readonly monitors: readonly { readonly monitor_id: string; readonly summary: Record<string, unknown> }[];
  /** `count`, `duration`, or what stopped it (`monitor.stop`, `run_end`, `run_failed`, a daemon's refusal). */
  readonly ended_by: string;
}

/**
 * The background monitors of one execution of a run. A `count` or `duration` monitor ends on its own and
 * the run waits for it before it ends (it was asked for that many samples); an `until_join` one samples
 * until a `monitor.stop` step or the run's end (the reference worker runs one step at a time, so the
 * run's end is its join). A run that fails stops them all; one that is cancelled, lost or handed back
 * aborts them (the daemon closes a run's monitors when it ends).
 */
export class RunMonitors {
  readonly #running = new Set<BackgroundMonitor>();

  constructor(readonly callbacks: MonitorCallbacks | undefined) {}

  add(monitor: BackgroundMonitor): void {
    this.#running.add(monitor);
    void monitor.done.finally(() => this.#running.delete(monitor));
  }

  /** Stops the monitors started by `stepId`, or every one when it is undefined. */
  async stop(stepId: string | undefined, why: string): Promise<MonitorEnd[]> {
    const chosen = [...this.#running].filter((m) => stepId === undefined || m.stepId === stepId);
    return Promise.all(chosen.map((m) => m.stop(why)));
  }

  /** Before the run's end: waits for the monitors that end on their own, stops the `until_join` ones. */
  async settle(succeeded: boolean): Promise<void> {
    const all = [...this.#running];
    await Promise.all(all.map((m) => (!succeeded ? m.stop('run_failed') : m.mode === 'until_join' ? m.stop('run_end') : m.done)));
  }

  /** The execution ended without settling (cancelled, lost, handed back, awaiting approval): stop sampling now. */
  abandon(): void {
    for (const monitor of this.#running) void monitor.stop('execution_ended');
  }
}
