import type { Knex } from 'knex';
import type { RunEvent } from '../../../shared/api/run-events.js';

/** A run's events after a position, with the run's status and last sequence number read in the same statement. */
export interface EventsRead {
  readonly status: string;
  /** `runs.event_seq`: the sequence number of the run's last event. */
  readonly lastSeq: number;
  /** The events, oldest first. */
  readonly items: RunEvent[];
}

interface Row {
  status: string;
  event_seq: string | number;
  seq: string | number | null;
  ts: Date | string | null;
  type: string | null;
  step_id: string | null;
  attempt: number | null;
  data: Record<string, unknown> | string | null;
}

/**
 * One statement: the run (live, and of `orgId` when given) and its events with `seq > after`. The status
 * and the last sequence number come from the same snapshot as the events, so a reader that has every
 * event up to `lastSeq` of a terminal run knows it has them all.
 */
const READ = `
  SELECT r.status, r.event_seq, e.seq, e.ts, e.type, e.step_id, e.attempt, e.data
  FROM runs r
  LEFT JOIN LATERAL (
    SELECT seq, ts, type, step_id, attempt, data FROM run_events
    WHERE run_id = r.id AND seq > ? ORDER BY seq LIMIT ?
  ) e ON true
  WHERE r.id = ? AND r.deleted_at IS NULL`;

/** Reads of `run_events`; the daemon's own appends are `runs/run-event-log.ts`, the worker's the callbacks'. */
export class RunEventsRepo {
  constructor(private readonly knex: Knex) {}

  /** Undefined when there is no such live run (in `orgId`, when given). */
  async read(runId: string, after: number, limit: number, orgId?: string): Promise<EventsRead | undefined> {
    const sql = orgId === undefined ? `${READ} ORDER BY e.seq` : `${READ} AND r.org_id = ? ORDER BY e.seq`;
    const bindings = orgId === undefined ? [after, limit, runId] : [after, limit, runId, orgId];
    const result = await this.knex.raw<{ rows: Row[] }>(sql, bindings);
    const first = result.rows[0];
    if (!first) return undefined;
    const events: RunEvent[] = [];
    for (const row of result.rows) {
      if (row.seq === null) continue;
      events.push({
        seq: Number(row.seq),
        ts: new Date(row.ts!).toISOString(),
        type: row.type!,
        step_id: row.step_id,
        attempt: row.attempt ?? 0,
        data: typeof row.data === 'string' ? (JSON.parse(row.data) as Record<string, unknown>) : (row.data ?? {}),
      });
    }
    return { status: first.status, lastSeq: Number(first.event_seq), items: events };
  }
}
