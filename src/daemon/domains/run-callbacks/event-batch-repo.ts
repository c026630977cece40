import type { Knex } from 'knex';
import { notifyRunEvents } from '../runs/run-event-log.js';
import { type HeldFacts, type Holder, isHeldBy } from './fence.js';

/** One event of a worker's batch, as validated. */
export interface WorkerEventRow {
  readonly worker_seq: number;
  readonly type: string;
  readonly step_id?: string | undefined;
  readonly ts?: string | undefined;
  readonly data?: Record<string, unknown> | undefined;
}

export type EventRunFacts = HeldFacts & { readonly event_seq: string | number };

/** What a batch's write found: the run (undefined: no such run), whether the holder held it, what was written. */
export interface BatchWrite {
  readonly run: HeldFacts | undefined;
  readonly held: boolean;
  readonly accepted: number;
  readonly lastSeq: number;
}

/**
 * The events of the batch not stored yet for (run, attempt, worker_seq), each worker_seq once, in
 * worker_seq order, numbered `n` from 1 among `k` of them: the part both writes share. The stored ones
 * are looked up by the batch's own worker_seqs, an index probe each (LATERAL … LIMIT 1 keeps the planner
 * from scanning the run's events instead, which it chose with stale statistics: 35 ms for a run of
 * 15 000). Bindings: events JSON, run id, attempt.
 */
const FRESH = `
  input AS (
    SELECT e.worker_seq, e.type, e.step_id, e.ts, e.data
    FROM jsonb_to_recordset(?::jsonb) AS e(worker_seq bigint, type text, step_id text, ts timestamptz, data jsonb)),
  stored AS (
    SELECT i.worker_seq FROM input i
    CROSS JOIN LATERAL (SELECT 1 FROM run_events r WHERE r.run_id = ? AND r.attempt = ? AND r.worker_seq = i.worker_seq LIMIT 1) hit),
  fresh AS (
    SELECT DISTINCT ON (worker_seq) * FROM input WHERE worker_seq NOT IN (SELECT worker_seq FROM stored) ORDER BY worker_seq),
  numbered AS (SELECT fresh.*, row_number() OVER (ORDER BY worker_seq) AS n, count(*) OVER () AS k FROM fresh)`;

const INSERT = `
  INSERT INTO run_events (run_id, seq, ts, type, step_id, data, attempt, worker_id, worker_seq)
  SELECT ?, bumped.event_seq - numbered.k + numbered.n, coalesce(numbered.ts, now()), numbered.type, numbered.step_id,
    coalesce(numbered.data, '{}'::jsonb), ?, ?, numbered.worker_seq
  FROM numbered CROSS JOIN bumped`;

/**
 * The batch in one statement, fencing included, committed on its own: the run's counter moves by the
 * number of new events only where the holder still holds it (checked on the row as locked), and the
 * events take the numbers below it. Its duplicate check reads the statement's snapshot; a retry of the
 * same events committed by another request while this one waited for the row is caught by the unique
 * index (`ON CONFLICT DO NOTHING`), and then, as fewer rows were written than numbers taken, the
 * statement fails on purpose (a division by zero, the one way plain SQL raises) and writes nothing: the
 * caller takes the locked path. The live streams are told by a statement of its own once this one has
 * committed (`notifyCommitted`). Bindings: see `appendAtOnce`.
 */
const AT_ONCE = `
  WITH run AS (SELECT status, worker_id, attempt, lease_expires_at, event_seq FROM runs WHERE id = ?),
  ${FRESH},
  bumped AS (
    UPDATE runs SET event_seq = event_seq + (SELECT count(*) FROM fresh)
    WHERE id = ? AND worker_id = ? AND attempt = ? AND lease_expires_at IS NOT NULL AND EXISTS (SELECT 1 FROM fresh)
    RETURNING event_seq),
  written AS (${INSERT} ON CONFLICT (run_id, attempt, worker_seq) DO NOTHING RETURNING seq),
  counted AS (SELECT (SELECT count(*) FROM fresh) AS fresh, (SELECT count(*) FROM written) AS written, (SELECT event_seq FROM bumped) AS last_seq)
  SELECT run.status, run.worker_id, run.attempt, run.lease_expires_at, run.event_seq, counted.fresh::integer AS fresh, counted.written::integer AS accepted,
    counted.last_seq,
    CASE WHEN counted.written <> counted.fresh AND counted.last_seq IS NOT NULL THEN 1 / (counted.written - counted.written) END AS raced
  FROM counted LEFT JOIN run ON true`;

/** The same write once the caller holds the run's row lock: its duplicate check sees every committed batch. */
const LOCKED = `
  WITH ${FRESH},
  bumped AS (UPDATE runs SET event_seq = event_seq + (SELECT count(*) FROM fresh) WHERE id = ? AND EXISTS (SELECT 1 FROM fresh) RETURNING event_seq),
  written AS (${INSERT} RETURNING seq)
  SELECT (SELECT count(*) FROM written)::integer AS accepted, (SELECT event_seq FROM bumped) AS last_seq`;

/** PostgreSQL's `division_by_zero`: how AT_ONCE says it met a concurrent copy of its events. */
const RACED = '22012';

/** Appends worker events: one statement on the usual path, the locked transaction when a concurrent retry met it. */
export class EventBatchRepo {
  constructor(private readonly knex: Knex) {}

  /** The batch in one statement; undefined when a concurrent retry of its events made it stand down (nothing written). */
  async appendAtOnce(runId: string, holder: Holder, eventsJson: string): Promise<BatchWrite | undefined> {
    type Row = EventRunFacts & { fresh: number; accepted: number; last_seq: string | null; status: HeldFacts['status'] | null };
    let row: Row;
    try {
      const result = await this.knex.raw<{ rows: Row[] }>(AT_ONCE, [
        runId,
        eventsJson,
        runId,
        holder.attempt,
        runId,
        holder.workerId,
        holder.attempt,
        runId,
        holder.attempt,
        holder.workerId,
      ]);
      row = result.rows[0]!;
    } catch (error) {
      if ((error as { code?: string }).code === RACED) return undefined;
      throw error;
    }
    const run = row.status === null ? undefined : row;
    // Nothing new: the holder is judged on the run as read. Something new: on the row as locked.
    const held = row.fresh === 0 ? run !== undefined && isHeldBy(run, holder) : row.last_seq !== null;
    return { run, held, accepted: row.accepted, lastSeq: Number(row.last_seq ?? row.event_seq ?? 0) };
  }

  /**
   * Tells the live streams of events already committed. Its own statement, not the batch's: PostgreSQL
   * serialises the commits of transactions that NOTIFY (one lock held through the commit's WAL flush),
   * which would serialise every batch; a transaction that only notifies writes no WAL and commits at once.
   */
  async notifyCommitted(runId: string, lastSeq: number): Promise<void> {
    await notifyRunEvents(this.knex, runId, lastSeq);
  }

  transaction<T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    return this.knex.transaction(work);
  }

  lock(trx: Knex.Transaction, runId: string): Promise<EventRunFacts | undefined> {
    return trx('runs').where({ id: runId }).forUpdate().first('status', 'worker_id', 'attempt', 'lease_expires_at', 'event_seq');
  }

  /** The write under the run's row lock (`lock` first): answers how many were written and the run's last sequence number. */
  async appendLocked(
    trx: Knex.Transaction,
    run: { readonly id: string; readonly holder: Holder; readonly lastSeq: number },
    eventsJson: string,
  ): Promise<{ accepted: number; lastSeq: number }> {
    const result = await trx.raw<{ rows: { accepted: number; last_seq: string | null }[] }>(LOCKED, [
      eventsJson,
      run.id,
      run.holder.attempt,
      run.id,
      run.id,
      run.holder.attempt,
      run.holder.workerId,
    ]);
    const row = result.rows[0]!;
    const lastSeq = row.last_seq === null ? run.lastSeq : Number(row.last_seq);
    if (row.accepted > 0) await notifyRunEvents(trx, run.id, lastSeq);
    return { accepted: row.accepted, lastSeq };
  }
}
