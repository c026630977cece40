import type { Knex } from 'knex';
import type { MonitorStreamFrame } from '../../../shared/api/monitors.js';
import { MONITOR_SAMPLES_CHANNEL, notify } from '../../db/channels.js';
import { sampleView, type SampleRow } from './monitor-view.js';

/** One sample to store, with its position in the run's monitor stream. */
export interface SampleToStore {
  readonly monitor_id: string;
  readonly seq: number;
  readonly ts: string | null;
  readonly value: number | null;
  readonly status: string | null;
  readonly data: Record<string, unknown> | null;
  readonly stream_seq: number;
}

export type StoredSample = SampleRow & { readonly monitor_id: string };

/** The run's samples after a stream position, with the run's status and last position read in the same statement. */
export interface SamplesRead {
  readonly status: string;
  readonly lastSeq: number;
  /** The stream's frames' data, oldest first. */
  readonly items: MonitorStreamFrame[];
}

const STORED = `
  SELECT s.monitor_id, s.seq FROM jsonb_to_recordset(?::jsonb) AS i(monitor_id uuid, seq bigint)
  JOIN monitor_samples s ON s.monitor_id = i.monitor_id AND s.seq = i.seq`;

const INSERT = `
  INSERT INTO monitor_samples (monitor_id, seq, ts, value, status, data, run_id, stream_seq)
  SELECT s.monitor_id, s.seq, coalesce(s.ts, now()), s.value, s.status, coalesce(s.data, '{}'::jsonb), ?, s.stream_seq
  FROM jsonb_to_recordset(?::jsonb) AS s(monitor_id uuid, seq bigint, ts timestamptz, value double precision, status text, data jsonb, stream_seq bigint)
  ON CONFLICT (monitor_id, seq) DO NOTHING
  RETURNING monitor_id, seq, ts, value, status, data`;

/**
 * One statement, as the run events' read: the live run and its samples with `stream_seq > after`, each
 * with its monitor's key. The status and `monitor_seq` come from the same snapshot as the samples.
 */
const READ = `
  SELECT r.status AS run_status, r.monitor_seq, s.stream_seq, s.monitor_id, s.monitor_key, s.seq, s.ts, s.value, s.status, s.data
  FROM runs r
  LEFT JOIN LATERAL (
    SELECT ms.stream_seq, ms.monitor_id, m.monitor_key, ms.seq, ms.ts, ms.value, ms.status, ms.data
    FROM monitor_samples ms JOIN monitors m ON m.id = ms.monitor_id
    WHERE ms.run_id = r.id AND ms.stream_seq > ? ORDER BY ms.stream_seq LIMIT ?
  ) s ON true
  WHERE r.id = ? AND r.deleted_at IS NULL
  ORDER BY s.stream_seq`;

type ReadRow = Partial<StoredSample> & {
  run_status: string;
  monitor_seq: string | number;
  stream_seq: string | number | null;
  monitor_key: string | null;
};

/** `monitor_samples`: the batch's writes (under the run's and its monitors' locks) and the stream's reads. */
export class MonitorSamplesRepo {
  constructor(private readonly knex: Knex) {}

  /** Which of the (monitor, seq) pairs are stored already, as `<monitor_id>:<seq>`. */
  async stored(trx: Knex.Transaction, pairs: readonly { monitor_id: string; seq: number }[]): Promise<Set<string>> {
    const result = await trx.raw<{ rows: { monitor_id: string; seq: string | number }[] }>(STORED, [JSON.stringify(pairs)]);
    return new Set(result.rows.map((row) => `${row.monitor_id}:${Number(row.seq)}`));
  }

  /** Hands out `count` stream positions of the run (its row is locked); answers the last. */
  async takeStreamSeqs(trx: Knex.Transaction, runId: string, count: number): Promise<number> {
    const [row] = (await trx('runs').where({ id: runId }).increment('monitor_seq', count).returning('monitor_seq')) as {
      monitor_seq: string;
    }[];
    return Number(row!.monitor_seq);
  }

  async insert(trx: Knex.Transaction, runId: string, samples: readonly SampleToStore[]): Promise<StoredSample[]> {
    const result = await trx.raw<{ rows: StoredSample[] }>(INSERT, [runId, JSON.stringify(samples)]);
    return result.rows;
  }

  /** A monitor's totals after its new samples: the count, and the highest seq with that sample when it moved. */
  async addToTotals(
    trx: Knex.Transaction,
    monitorId: string,
    added: number,
    last: { seq: number; sample: ReturnType<typeof sampleView> } | undefined,
  ): Promise<void> {
    await trx('monitors')
      .where({ id: monitorId })
      .update({
        sample_count: trx.raw('sample_count + ?', [added]),
        ...(last ? { last_seq: last.seq, last_sample: JSON.stringify(last.sample) } : {}),
        updated_at: trx.fn.now(),
      });
  }

  /** Tells every instance's monitor streams that the run has samples up to `lastStreamSeq` (after the commit). */
  async notifyCommitted(runId: string, lastStreamSeq: number): Promise<void> {
    await notify(this.knex, MONITOR_SAMPLES_CHANNEL, `${runId}:${lastStreamSeq}`);
  }

  /** Undefined when there is no such live run. */
  async read(runId: string, after: number, limit: number): Promise<SamplesRead | undefined> {
    const result = await this.knex.raw<{ rows: ReadRow[] }>(READ, [after, limit, runId]);
    const first = result.rows[0];
    if (!first) return undefined;
    const frames: MonitorStreamFrame[] = [];
    for (const row of result.rows) {
      if (row.stream_seq === null) continue;
      const sample = sampleView(row as StoredSample);
      frames.push({
        seq: Number(row.stream_seq),
        type: 'monitor.sample',
        monitor_id: row.monitor_id!,
        monitor_key: row.monitor_key!,
        sample_seq: sample.seq,
        ts: sample.ts,
        value: sample.value,
        status: sample.status,
        data: sample.data,
      });
    }
    return { status: first.run_status, lastSeq: Number(first.monitor_seq), items: frames };
  }
}
