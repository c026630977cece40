import type { z } from 'zod';
import type { createMonitorBody, Monitor, patchMonitorBody, sampleBatchAnswer, sampleInput } from '../shared/api/monitors.js';
import { fenceHeaders } from './callbacks.js';
import type { InternalHttp } from './http-client.js';

export type NewMonitor = Omit<z.input<typeof createMonitorBody>, 'run_id'>;
export type MonitorChanges = z.input<typeof patchMonitorBody>;
export type MonitorSampleInput = z.input<typeof sampleInput>;
export type SampleBatchAnswer = z.infer<typeof sampleBatchAnswer>;

/** What recording monitors says to the daemon: HttpMonitorCallbacks below, or a test's own. */
export interface MonitorCallbacks {
  open(monitor: NewMonitor): Promise<Monitor>;
  update(monitorId: string, changes: MonitorChanges): Promise<Monitor>;
  postSamples(samples: readonly MonitorSampleInput[]): Promise<SampleBatchAnswer>;
}

/**
 * What recording monitors during one attempt of one run says to the daemon (`/api/v1/monitors…`), fenced
 * with the worker and attempt as the run callbacks are. A retried call is harmless: a monitor is found by
 * its key, a sample by its seq. The `monitor.*` handlers record through it (src/worker/monitoring/).
 */
export class HttpMonitorCallbacks implements MonitorCallbacks {
  readonly #fence: Readonly<Record<string, string>>;

  constructor(
    private readonly http: InternalHttp,
    private readonly runId: string,
    workerId: string,
    attempt: number,
  ) {
    this.#fence = fenceHeaders(workerId, attempt);
  }

  open(monitor: NewMonitor): Promise<Monitor> {
    return this.#mutate<Monitor>('POST', '/api/v1/monitors', { ...monitor, run_id: this.runId });
  }

  update(monitorId: string, changes: MonitorChanges): Promise<Monitor> {
    return this.#mutate<Monitor>('PATCH', `/api/v1/monitors/${encodeURIComponent(monitorId)}`, changes);
  }

  postSamples(samples: readonly MonitorSampleInput[]): Promise<SampleBatchAnswer> {
    return this.#mutate<SampleBatchAnswer>('POST', '/api/v1/monitor-samples/batch', { samples });
  }

  /** Closes every monitor of the run still open: before the run's end (which closes them too). */
  finalize(): Promise<{ closed: string[] }> {
    return this.#mutate('POST', `/api/v1/monitors/finalize-for-run/${this.runId}`, undefined);
  }

  #mutate<T>(method: string, path: string, body: unknown): Promise<T> {
    return this.http.call<T>(method, path, { ...(body === undefined ? {} : { body }), headers: this.#fence });
  }
}
