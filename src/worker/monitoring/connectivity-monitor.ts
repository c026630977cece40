import type { Monitor } from '../../shared/api/monitors.js';
import { MAX_SAMPLES_PER_BATCH } from '../../shared/api/monitors.js';
import type { Checker } from '../probes/connectivity.js';
import type { CheckOutcome } from '../probes/outcome.js';
import type { ProbeTarget } from '../probes/targets.js';
import type { MonitorCallbacks, MonitorSampleInput } from '../monitor-callbacks.js';
import type { BackgroundMonitor, MonitorEnd, ScheduleMode } from './run-monitors.js';
import { SeriesStats } from './series.js';

export interface ConnectivityMonitorPlan {
  readonly stepId: string;
  readonly checkType: string;
  readonly checker: Checker;
  readonly targets: readonly ProbeTarget[];
  readonly mode: ScheduleMode;
  readonly count: number;
  readonly durationMs: number;
  readonly intervalMs: number;
}

/** Samples are sent at most this often (and at the end), so a fast interval does not make a call per tick. */
const FLUSH_EVERY_MS = 1000;

interface Series {
  readonly target: ProbeTarget;
  readonly monitor: Monitor;
  readonly stats: SeriesStats;
}

/**
 * One connectivity monitor per target, sampled together every `intervalMs` (a tick's samples share its
 * seq, from 1) until the plan's mode ends it or it is stopped; samples go to the daemon in batches, and
 * each monitor is closed with its summary. A daemon that refuses a batch (the run no longer held, a
 * monitor closed or at its cap) ends the sampling: the monitor cannot take more.
 */
export class ConnectivityMonitor implements BackgroundMonitor {
  readonly #stop = new AbortController();
  readonly #series: readonly Series[];
  readonly #pending: MonitorSampleInput[] = [];
  #endedBy = '';
  #done: Promise<MonitorEnd> | undefined;

  private constructor(
    private readonly plan: ConnectivityMonitorPlan,
    private readonly callbacks: MonitorCallbacks,
    private readonly runSignal: AbortSignal,
    series: readonly Series[],
  ) {
    this.#series = series;
  }

  /** Opens a monitor per target (a retry finds the ones opened: they are keyed by step and target). */
  static async open(plan: ConnectivityMonitorPlan, callbacks: MonitorCallbacks, runSignal: AbortSignal): Promise<ConnectivityMonitor> {
    const series: Series[] = [];
    for (const target of plan.targets) {
      const monitor = await callbacks.open({
        monitor_key: monitorKey(plan.stepId, target),
        kind: `connectivity.${plan.checkType}`,
        name: `${plan.checkType} ${target.name}`.slice(0, 255),
        step_id: plan.stepId,
        target: (target.host ?? target.name).slice(0, 255),
        unit: 'ms',
      });
      series.push({ target, monitor, stats: new SeriesStats() });
    }
    return new ConnectivityMonitor(plan, callbacks, runSignal, series);
  }

  get stepId(): string {
    return this.plan.stepId;
  }

  get mode(): ScheduleMode {
    return this.plan.mode;
  }

  get monitors(): readonly { readonly monitor: Monitor; readonly target: ProbeTarget }[] {
    return this.#series;
  }

  get done(): Promise<MonitorEnd> {
    this.#done ??= this.#sample();
    return this.#done;
  }

  start(): void {
    void this.done;
  }

  stop(why: string): Promise<MonitorEnd> {
    if (!this.#stop.signal.aborted) {
      this.#endedBy ||= why;
      this.#stop.abort(why);
    }
    return this.done;
  }

  async #sample(): Promise<MonitorEnd> {
    const signal = AbortSignal.any([this.runSignal, this.#stop.signal]);
    const started = Date.now();
    let lastFlush = started;
    for (let seq = 1; !signal.aborted && this.#endedBy === ''; seq++) {
      const tickStarted = Date.now();
      const outcomes = await Promise.all(this.#series.map((s) => this.plan.checker(s.target, signal).catch(() => undefined)));
      if (signal.aborted) break;
      this.#record(seq, outcomes);
      if (this.#ended(seq, started)) break;
      if (Date.now() - lastFlush >= FLUSH_EVERY_MS || this.#pending.length >= MAX_SAMPLES_PER_BATCH - this.#series.length) {
        lastFlush = Date.now();
        if (!(await this.#flush())) break;
      }
      await pause(Math.max(0, this.plan.intervalMs - (Date.now() - tickStarted)), signal);
    }
    if (this.runSignal.aborted) return this.#end();
    if (await this.#flush()) await this.#close();
    return this.#end();
  }

  #record(seq: number, outcomes: readonly (CheckOutcome | undefined)[]): void {
    const ts = new Date().toISOString();
    this.#series.forEach((series, i) => {
      const outcome = outcomes[i] ?? { ok: false, latencyMs: null, code: 'check_error', message: 'the check threw' };
      series.stats.add(outcome);
      this.#pending.push({
        monitor_id: series.monitor.id,
        seq,
        ts,
        value: outcome.ok ? outcome.latencyMs : null,
        status: outcome.ok ? 'ok' : (outcome.code ?? 'failed'),
        data: outcome.ok ? {} : { code: outcome.code ?? 'failed', message: (outcome.message ?? '').slice(0, 500) },
      });
    });
  }

  #ended(seq: number, started: number): boolean {
    if (this.plan.mode === 'count' && seq >= this.plan.count) this.#endedBy = 'count';
    else if (this.plan.mode === 'duration' && Date.now() - started + this.plan.intervalMs > this.plan.durationMs)
      this.#endedBy = 'duration';
    return this.#endedBy !== '';
  }

  /** Sends what is pending; false when the daemon refused it (sampling then ends). */
  async #flush(): Promise<boolean> {
    if (this.#pending.length === 0) return true;
    const batch = this.#pending.splice(0, this.#pending.length);
    try {
      await this.callbacks.postSamples(batch);
      return true;
    } catch (error) {
      this.#endedBy = `samples_refused:${(error as { code?: string }).code ?? 'unreachable'}`;
      return false;
    }
  }

  async #close(): Promise<void> {
    for (const series of this.#series) {
      await this.callbacks
        .update(series.monitor.id, { summary: { ...series.stats.summary(), ended_by: this.#endedBy }, status: 'closed' })
        .catch(() => undefined);
    }
  }

  #end(): MonitorEnd {
    return {
      step_id: this.plan.stepId,
      ended_by: this.#endedBy || String(this.runSignal.reason ?? 'stopped'),
      monitors: this.#series.map((s) => ({ monitor_id: s.monitor.id, summary: s.stats.summary() })),
    };
  }
}

/** The monitor's name within the run: its step and device (or the name it checks), as the key's pattern allows. */
function monitorKey(stepId: string, target: ProbeTarget): string {
  const subject = target.deviceId !== '' ? target.deviceId : target.name;
  return `${stepId}.${subject}`.replace(/[^A-Za-z0-9_.:-]/g, '-').slice(0, 128);
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted || ms === 0) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
