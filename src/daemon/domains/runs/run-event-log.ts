import type { Knex } from 'knex';
import { notify, RUN_EVENTS_CHANNEL } from '../../db/channels.js';

/** An event the daemon itself records on a run (a state change: `run.status` with `{from, to, …}`). */
export interface DaemonEvent {
  readonly type: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly stepId?: string;
}

/**
 * Appends the daemon's own event to a run: the next sequence number comes from `runs.event_seq` (the row
 * lock orders concurrent appends, so numbers are gap-free and in commit order), and the live streams of
 * every instance are told (`<run_id>:<seq>`) when `trx` commits. Worker batches take numbers the same
 * way (see the callbacks' events repository). Returns the event's sequence number.
 */
export async function appendDaemonEvent(trx: Knex | Knex.Transaction, runId: string, event: DaemonEvent): Promise<number> {
  const result = await trx.raw<{ rows: { run_id: string; seq: string }[] }>(
    `WITH bumped AS (UPDATE runs SET event_seq = event_seq + 1 WHERE id = ? RETURNING id, event_seq, attempt)
     INSERT INTO run_events (run_id, seq, type, step_id, data, attempt)
     SELECT id, event_seq, ?, ?, ?::jsonb, attempt FROM bumped RETURNING run_id, seq`,
    [runId, event.type, event.stepId ?? null, JSON.stringify(event.data)],
  );
  const row = result.rows[0];
  const seq = Number(row?.seq ?? 0);
  // The run as the database writes its id: the hubs key streams by it, and a caller's capitals would wake none.
  if (row && seq > 0) await notifyRunEvents(trx, row.run_id, seq);
  return seq;
}

/** Tells the live streams that `runId` has events up to `lastSeq` (on commit of `trx`). */
export async function notifyRunEvents(trx: Knex | Knex.Transaction, runId: string, lastSeq: number): Promise<void> {
  await notify(trx, RUN_EVENTS_CHANNEL, `${runId}:${lastSeq}`);
}
