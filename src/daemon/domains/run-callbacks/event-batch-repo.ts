import type { Knex } from 'knex';
import { notifyRunEvents } from '../runs/run-event-log.js';
import type { HeldFacts } from './fence.js';

/** One event of a worker's batch, as validated. */
export interface WorkerEventRow {
  readonly worker_seq: number;
  readonly type: string;
  readonly step_id?: string | undefined;
  readonly ts?: string | undefined;
  readonly data?: Record<string, unknown> | undefined;
}

export type EventRunFacts = HeldFacts & { readonly event_seq: string | number };

/**
 * Appends worker events in three statements inside the caller's transaction: lock the run (which orders
 * concurrent batches and hands out `event_seq`), write the new events with the counter moved by their
 * number, notify. The write reads `run_events` for duplicates after the lock is held, so a batch that
 * committed while this one waited is seen and counted out: numbers stay gap-free.
 */
export class EventBatchRepo {
  constructor(private readonly knex: Knex) {}

  transaction<T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    return this.knex.transaction(work);
  }

  lock(trx: Knex.Transaction, runId: string): Promise<EventRunFacts | undefined> {
    return trx('runs').where({ id: runId }).forUpdate().first('status', 'worker_id', 'attempt', 'lease_expires_at', 'event_seq');
  }

  /**
   * Writes the events of `events` not already stored for (run, attempt, worker_seq), each worker_seq once,
   * numbered from `lastSeq + 1` in worker_seq order, and moves `runs.event_seq` past them. Answers how many
   * were written and the run's last sequence number.
   */
  async append(
    trx: Knex.Transaction,
    run: { readonly id: string; readonly attempt: number; readonly workerId: string; readonly lastSeq: number },
    events: readonly WorkerEventRow[],
  ): Promise<{ accepted: number; lastSeq: number }> {
    const result = await trx.raw<{ rows: { accepted: number; last_seq: string | null }[] }>(
      `WITH input AS (
         SELECT DISTINCT ON (e.worker_seq) e.worker_seq, e.type, e.step_id, e.ts, e.data
         FROM jsonb_to_recordset(?::jsonb) AS e(worker_seq bigint, type text, step_id text, ts timestamptz, data jsonb)
         WHERE NOT EXISTS (SELECT 1 FROM run_events r WHERE r.run_id = ? AND r.attempt = ? AND r.worker_seq = e.worker_seq)
         ORDER BY e.worker_seq),
       numbered AS (SELECT input.*, row_number() OVER (ORDER BY worker_seq) AS n FROM input),
       written AS (
         INSERT INTO run_events (run_id, seq, ts, type, step_id, data, attempt, worker_id, worker_seq)
         SELECT ?, ? + n, coalesce(ts, now()), type, step_id, coalesce(data, '{}'::jsonb), ?, ?, worker_seq FROM numbered
         RETURNING seq),
       bumped AS (
         UPDATE runs SET event_seq = event_seq + (SELECT count(*) FROM written)
         WHERE id = ? AND EXISTS (SELECT 1 FROM written) RETURNING event_seq)
       SELECT (SELECT count(*) FROM written)::integer AS accepted, (SELECT event_seq FROM bumped) AS last_seq`,
      [JSON.stringify(events), run.id, run.attempt, run.id, run.lastSeq, run.attempt, run.workerId, run.id],
    );
    const row = result.rows[0]!;
    const lastSeq = row.last_seq === null ? run.lastSeq : Number(row.last_seq);
    if (row.accepted > 0) await notifyRunEvents(trx, run.id, lastSeq);
    return { accepted: row.accepted, lastSeq };
  }
}
