import { MAX_SAMPLE_DATA_BYTES, MAX_SAMPLES_PER_BATCH, type SampleInput } from '../../../shared/api/monitors.js';
import { problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import { isUuid } from '../../../shared/ids.js';
import { refuseOversizedBatch } from '../../http/refuse-oversized-batch.js';
import { fence, type Holder, isHeldBy } from '../run-callbacks/fence.js';
import type { MonitorSamplesRepo, SampleToStore, StoredSample } from './monitor-samples-repo.js';
import { monitorClosed } from './monitor-problems.js';
import { type MonitorRow, sampleView } from './monitor-view.js';
import type { MonitorsRepo } from './monitors-repo.js';

export interface SampleBatchOutcome {
  readonly accepted: number;
  readonly duplicates: number;
}

/** 413 `monitor_batch_too_large` for a batch of more than MAX_SAMPLES_PER_BATCH samples, before its items are validated. */
export function refuseOversizedSampleBatch(body: unknown): void {
  refuseOversizedBatch(body, { field: 'samples', limit: MAX_SAMPLES_PER_BATCH, code: 'monitor_batch_too_large', noun: 'samples' });
}

/** 413 `monitor_sample_too_large` naming the first sample whose `data` exceeds MAX_SAMPLE_DATA_BYTES as JSON. */
function refuseOversizedData(samples: readonly SampleInput[]): void {
  for (const [index, sample] of samples.entries()) {
    if (sample.data !== undefined && Buffer.byteLength(JSON.stringify(sample.data)) > MAX_SAMPLE_DATA_BYTES) {
      throw problem('monitor_sample_too_large', `A sample's data is at most ${MAX_SAMPLE_DATA_BYTES} bytes as JSON.`, {
        limit: MAX_SAMPLE_DATA_BYTES,
        index,
      });
    }
  }
}

const keyOf = (sample: { monitor_id: string; seq: number | string }) => `${sample.monitor_id}:${Number(sample.seq)}`;

/**
 * A worker's samples, of one or more monitors of one run: checked whole before anything is written (sizes,
 * every monitor known, one run, the run held by the headers' worker and attempt, every monitor open, no
 * monitor past the cap), deduplicated by (monitor, seq), numbered gap-free in the run's monitor stream,
 * and the monitors' totals moved, in one transaction that locks the run, then the monitors (the order
 * the run's end takes them in, by its trigger). The streams are told once it has committed.
 */
export class SampleBatchService {
  constructor(
    private readonly monitors: MonitorsRepo,
    private readonly samples: MonitorSamplesRepo,
    /** SERVICE_MONITOR_MAX_SAMPLES. */
    private readonly maxSamples: number,
  ) {}

  async append(holder: Holder, sent: readonly SampleInput[]): Promise<SampleBatchOutcome> {
    refuseOversizedData(sent);
    // The database writes a uuid in lower case: compared as stored.
    const batch = sent.map((s) => ({ ...s, monitor_id: s.monitor_id.toLowerCase() }));
    const runId = await this.runOf(batch);
    const written = await this.monitors.transaction(async (trx) => {
      fence(await this.monitors.lockRun(trx, runId), (r) => isHeldBy(r, holder), holder);
      const ids = [...new Set(batch.map((s) => s.monitor_id))];
      const locked = await this.monitors.lockMany(trx, ids);
      const closed = locked.find((m) => m.status === 'closed');
      if (closed) throw monitorClosed(closed.id);
      const fresh = await this.freshOf(trx, batch);
      this.refuseOverCap(locked, fresh);
      if (fresh.length === 0) return { stored: [] as StoredSample[], lastStreamSeq: 0 };
      const lastStreamSeq = await this.samples.takeStreamSeqs(trx, runId, fresh.length);
      const first = lastStreamSeq - fresh.length + 1;
      const stored = await this.samples.insert(
        trx,
        runId,
        fresh.map((s, i): SampleToStore => ({
          monitor_id: s.monitor_id,
          seq: s.seq,
          ts: s.ts ?? null,
          value: s.value ?? null,
          status: s.status ?? null,
          data: s.data ?? null,
          stream_seq: first + i,
        })),
      );
      await this.moveTotals(trx, locked, stored);
      return { stored, lastStreamSeq };
    });
    if (written.stored.length > 0) await this.samples.notifyCommitted(runId, written.lastStreamSeq);
    return { accepted: written.stored.length, duplicates: batch.length - written.stored.length };
  }

  /** The one run of the batch's monitors: 404 for an unknown monitor, 422 naming the first sample of another run. */
  private async runOf(batch: readonly SampleInput[]): Promise<string> {
    const ids = [...new Set(batch.map((s) => s.monitor_id))];
    const unknown = (id: string) => problem('resource_not_found', 'Monitor not found.', { monitor_id: id });
    const bad = ids.find((id) => !isUuid(id));
    if (bad !== undefined) throw unknown(bad);
    const runs = new Map((await this.monitors.runsOf(ids)).map((row) => [row.id, row.run_id]));
    const missing = ids.find((id) => !runs.has(id));
    if (missing !== undefined) throw unknown(missing);
    const runId = runs.get(ids[0]!)!;
    const other = batch.findIndex((s) => runs.get(s.monitor_id) !== runId);
    if (other >= 0) throw problems.validation([{ path: `samples.${other}.monitor_id`, message: "a batch's monitors are of one run" }]);
    return runId;
  }

  /** The samples not stored yet, each (monitor, seq) once, in the batch's order. */
  private async freshOf(trx: Parameters<MonitorSamplesRepo['stored']>[0], batch: readonly SampleInput[]): Promise<SampleInput[]> {
    const stored = await this.samples.stored(
      trx,
      batch.map((s) => ({ monitor_id: s.monitor_id, seq: s.seq })),
    );
    const seen = new Set(stored);
    const fresh: SampleInput[] = [];
    for (const sample of batch) {
      const key = keyOf(sample);
      if (seen.has(key)) continue;
      seen.add(key);
      fresh.push(sample);
    }
    return fresh;
  }

  /** 413 `monitor_sample_limit` when the fresh samples would take a monitor past the cap. */
  private refuseOverCap(monitors: readonly MonitorRow[], fresh: readonly SampleInput[]): void {
    const adding = new Map<string, number>();
    for (const sample of fresh) adding.set(sample.monitor_id, (adding.get(sample.monitor_id) ?? 0) + 1);
    for (const monitor of monitors) {
      const count = Number(monitor.sample_count);
      if (count + (adding.get(monitor.id) ?? 0) > this.maxSamples) {
        throw problem('monitor_sample_limit', `A monitor holds at most ${this.maxSamples} samples.`, {
          limit: this.maxSamples,
          monitor_id: monitor.id,
          sample_count: count,
        });
      }
    }
  }

  private async moveTotals(
    trx: Parameters<MonitorSamplesRepo['stored']>[0],
    monitors: readonly MonitorRow[],
    stored: readonly StoredSample[],
  ): Promise<void> {
    for (const monitor of monitors) {
      const mine = stored.filter((s) => s.monitor_id === monitor.id);
      if (mine.length === 0) continue;
      const highest = mine.reduce((a, b) => (Number(b.seq) > Number(a.seq) ? b : a));
      const moved = monitor.last_seq === null || Number(highest.seq) > Number(monitor.last_seq);
      await this.samples.addToTotals(
        trx,
        monitor.id,
        mine.length,
        moved ? { seq: Number(highest.seq), sample: sampleView(highest) } : undefined,
      );
    }
  }
}
