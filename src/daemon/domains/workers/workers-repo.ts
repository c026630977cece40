import type { Knex } from 'knex';
import { newestFirst, pageWithTotal } from '../../db/page.js';

/** What a heartbeat says about its worker. */
export interface WorkerReport {
  readonly id: string;
  readonly hostname: string | null;
  readonly version: string | null;
  /** Null keeps what an earlier heartbeat said. */
  readonly labels: Readonly<Record<string, string>> | null;
  readonly handlers: readonly string[] | null;
  readonly capacity: number;
  readonly running: number;
  readonly draining: boolean;
}

/** A `workers` row as listed, with whether its last heartbeat is within one lease. */
export interface WorkerRow {
  readonly id: string;
  readonly hostname: string | null;
  readonly version: string | null;
  readonly labels_json: Record<string, string>;
  readonly handlers_json: string[];
  readonly capacity: number;
  readonly running: number;
  readonly draining: boolean;
  readonly online: boolean;
  readonly first_seen_at: Date | string;
  readonly last_seen_at: Date | string;
}

const COLUMNS = [
  'id',
  'hostname',
  'version',
  'labels_json',
  'handlers_json',
  'capacity',
  'running',
  'draining',
  'first_seen_at',
  'last_seen_at',
] as const;

/** The worker registry (`workers`): what heartbeats report, and the list. */
export class WorkersRepo {
  constructor(private readonly knex: Knex) {}

  /**
   * Records a heartbeat: the worker's row made or brought up to date, seen now. Answers when it was seen
   * before (null for a new worker): what changed on its runs since then is news to it.
   */
  async report(worker: WorkerReport): Promise<Date | null> {
    const result = await this.knex.raw<{ rows: { previous: Date | null }[] }>(
      `WITH previous AS (SELECT last_seen_at FROM workers WHERE id = ?)
       INSERT INTO workers (id, hostname, version, labels_json, handlers_json, capacity, running, draining, last_seen_at)
       VALUES (?, ?, ?, coalesce(?::jsonb, '{}'::jsonb), coalesce(?::jsonb, '[]'::jsonb), ?, ?, ?, now())
       ON CONFLICT (id) DO UPDATE SET
         hostname = coalesce(EXCLUDED.hostname, workers.hostname),
         version = coalesce(EXCLUDED.version, workers.version),
         labels_json = CASE WHEN ?::boolean THEN EXCLUDED.labels_json ELSE workers.labels_json END,
         handlers_json = CASE WHEN ?::boolean THEN EXCLUDED.handlers_json ELSE workers.handlers_json END,
         capacity = EXCLUDED.capacity, running = EXCLUDED.running, draining = EXCLUDED.draining, last_seen_at = now()
       RETURNING (SELECT last_seen_at FROM previous) AS previous`,
      [
        worker.id,
        worker.id,
        worker.hostname,
        worker.version,
        worker.labels === null ? null : JSON.stringify(worker.labels),
        worker.handlers === null ? null : JSON.stringify(worker.handlers),
        worker.capacity,
        worker.running,
        worker.draining,
        worker.labels !== null,
        worker.handlers !== null,
      ],
    );
    const previous = result.rows[0]?.previous ?? null;
    return previous === null ? null : new Date(previous);
  }

  /** How many workers are registered, how many were seen within `onlineSeconds`, and the latest sighting. */
  async counts(onlineSeconds: number): Promise<{ total: number; online: number; last_seen_at: Date | null }> {
    const result = await this.knex.raw<{ rows: { total: number; online: number; last_seen_at: Date | null }[] }>(
      `SELECT count(*)::integer AS total,
              (count(*) FILTER (WHERE last_seen_at >= now() - make_interval(secs => ?::integer)))::integer AS online,
              max(last_seen_at) AS last_seen_at
         FROM workers`,
      [onlineSeconds],
    );
    return result.rows[0]!;
  }

  /** Workers newest seen first; online when seen within `onlineSeconds`. */
  async list(
    filter: { readonly online?: boolean | undefined; readonly limit: number; readonly offset: number },
    onlineSeconds: number,
  ): Promise<{ rows: WorkerRow[]; total: number }> {
    const recent = 'last_seen_at >= now() - make_interval(secs => ?::integer)';
    const base = this.knex('workers');
    if (filter.online === true) base.whereRaw(recent, [onlineSeconds]);
    if (filter.online === false) base.whereRaw(`NOT (${recent})`, [onlineSeconds]);
    const columns = [...COLUMNS, this.knex.raw(`${recent} AS online`, [onlineSeconds]) as unknown as string];
    return pageWithTotal<WorkerRow>(this.knex, base, columns, newestFirst('last_seen_at'), filter);
  }
}
