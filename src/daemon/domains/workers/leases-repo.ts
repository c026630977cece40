import type { Knex } from 'knex';
import { notifyExpression, RUN_EVENTS_CHANNEL } from '../../db/channels.js';
import { appendDaemonEvent, type DaemonEvent } from '../runs/run-event-log.js';
import type { RunStatus } from '../runs/run-view.js';

export type LeasesTx = Knex.Transaction;

/** A run a worker names in its heartbeat, as it believes it holds it. */
export interface NamedRun {
  readonly runId: string;
  readonly attempt: number;
}

/** A run the worker holds, with its status now. */
export interface HeldRun {
  readonly id: string;
  readonly status: RunStatus;
  /** Changed (cancelled, paused, resumed, renamed: `updated_at`) since the given time and the claim: news to the worker. */
  readonly changed: boolean;
}

/** A run just claimed, with what its worker needs to execute it. */
export interface ClaimedRow {
  readonly id: string;
  readonly org_id: string;
  readonly workflow_id: string;
  readonly flow_id: string | null;
  readonly flow_version: number;
  readonly flow_name: string;
  readonly name: string;
  readonly params_json: Record<string, unknown>;
  readonly targets_json: Record<string, string[]>;
  readonly run_vars_json: Record<string, unknown>;
  readonly attempt: number;
  readonly lease_expires_at: Date | string;
  /** Null when the flow was purged (the run's `flow_id` set null, its versions gone). */
  readonly definition_json: Record<string, unknown> | null;
  /** A run resumed after an approval: earlier attempts' succeeded steps by id; null when none. */
  readonly completed_steps: Record<string, { outputs: Record<string, unknown> }> | null;
  /** Steps whose approval gate approved; null when none. */
  readonly approved_steps: string[] | null;
  /** The live target devices' names and management addresses by id; null when the run names none. */
  readonly target_devices: Record<string, { name: string; hostname: string | null }> | null;
}

/** A held run whose lease ends (expired, or handed back), locked for the transaction. */
export interface EndingLease {
  readonly id: string;
  readonly org_id: string;
  readonly workflow_id: string;
  readonly status: RunStatus;
  readonly worker_id: string | null;
  readonly attempt: number;
  /** Whether a step run of this attempt has started: then the run cannot be handed to another worker. */
  readonly step_started: boolean;
}

/** `now() + lease` in SQL, the lease in whole seconds. */
const LEASE_END = `now() + make_interval(secs => ?::integer)`;

/**
 * What a run resumed after an approval carries (only a later attempt can have either): `completed_steps`,
 * the newest succeeded step run of each step in earlier attempts with its outputs, and `approved_steps`,
 * the steps whose approval approved (by people or by its timeout).
 */
const RESUMED = `CASE WHEN c.attempt > 1 THEN (
      SELECT jsonb_object_agg(s.step_id, jsonb_build_object('outputs', s.outputs_json)) FROM (
        SELECT DISTINCT ON (step_id) step_id, outputs_json FROM step_runs
        WHERE run_id = c.id AND attempt < c.attempt AND status = 'succeeded' ORDER BY step_id, attempt DESC) s)
    END AS completed_steps,
    CASE WHEN c.attempt > 1 THEN (
      SELECT jsonb_agg(a.step_id ORDER BY a.step_id) FROM approvals a
      WHERE a.run_id = c.id AND (a.status = 'approved' OR (a.status = 'expired' AND a.timeout_outcome = 'approved')))
    END AS approved_steps`;

/**
 * The run's target devices as its worker needs them to reach them: name and management address by id,
 * live devices of the run's organization or the shared one (as admission judged them). A device deleted
 * since admission is left out; the worker fails a step that needs it. Ids that are not UUIDs (none pass
 * admission) are skipped rather than cast.
 */
const TARGET_DEVICES = `(SELECT jsonb_object_agg(d.id::text, jsonb_build_object('name', d.name, 'hostname', d.hostname))
    FROM devices d WHERE d.deleted_at IS NULL
      AND d.id = ANY(ARRAY(SELECT t.id::uuid FROM jsonb_each(c.targets_json) e, jsonb_array_elements_text(e.value) AS t(id)
        WHERE t.id ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'))
      AND (d.org_id = c.org_id OR d.org_id = (SELECT o.id FROM organizations o WHERE o.is_shared AND o.is_active))
  ) AS target_devices`;

/**
 * A claim moves oldest queued runs to `running` in one statement, `FOR UPDATE SKIP LOCKED` so concurrent
 * heartbeats (of any instance) never take the same run, bumps each run's `event_seq` and writes its
 * `run.status` event with that number (the row lock keeps the sequence gap-free, as appendDaemonEvent
 * does one run at a time), tells the live streams (`<run_id>:<seq>`, on commit), and reads the committed
 * definition the run was admitted with, what a run resumed after an approval carries (RESUMED), and its
 * target devices' addresses (TARGET_DEVICES). `updated_at`
 * stays: it stamps a user's change (with `updated_by`), which is what a heartbeat reports as news.
 */
const CLAIM = `WITH picked AS MATERIALIZED (
    SELECT id FROM runs WHERE status = 'queued' AND deleted_at IS NULL
    ORDER BY created_at, id LIMIT ? FOR UPDATE SKIP LOCKED
  ), claimed AS (
    UPDATE runs r SET status = 'running', worker_id = ?, attempt = r.attempt + 1, claimed_at = now(),
      started_at = coalesce(r.started_at, now()), lease_expires_at = ${LEASE_END}, event_seq = r.event_seq + 1
    FROM picked WHERE r.id = picked.id
    RETURNING r.id, r.org_id, r.workflow_id, r.flow_id, r.flow_version, r.flow_name, r.name, r.params_json, r.targets_json,
      r.run_vars_json, r.attempt, r.event_seq, r.lease_expires_at, r.created_at, r.worker_id
  ), events AS (
    INSERT INTO run_events (run_id, seq, type, data, attempt)
    SELECT id, event_seq, 'run.status',
      jsonb_build_object('from', 'queued', 'to', 'running', 'worker_id', worker_id, 'attempt', attempt), attempt
    FROM claimed
  )
  SELECT c.id, c.org_id, c.workflow_id, c.flow_id, c.flow_version, c.flow_name, c.name, c.params_json, c.targets_json, c.run_vars_json,
    c.attempt, c.lease_expires_at, v.definition_json, ${notifyExpression(RUN_EVENTS_CHANNEL, `c.id::text || ':' || c.event_seq`)} AS notified,
    ${RESUMED}, ${TARGET_DEVICES}
  FROM claimed c LEFT JOIN flow_versions v ON v.flow_id = c.flow_id AND v.version = c.flow_version
  ORDER BY c.created_at, c.id`;

const ENDING_COLUMNS = `r.id, r.org_id, r.workflow_id, r.status, r.worker_id, r.attempt,
  EXISTS (SELECT 1 FROM step_runs s WHERE s.run_id = r.id AND s.attempt = r.attempt AND s.started_at IS NOT NULL) AS step_started`;

/** The named runs as rows of a statement: `(run_id uuid, attempt integer)`. */
const NAMED = `SELECT (n->>0)::uuid AS run_id, (n->>1)::integer AS attempt FROM jsonb_array_elements(?::jsonb) AS n`;

function namedJson(named: readonly NamedRun[]): string {
  return JSON.stringify(named.map((n) => [n.runId, n.attempt]));
}

/** The claim, the lease and its end on the run row, which is the queue (docs/workers.md). */
export class LeasesRepo {
  constructor(private readonly knex: Knex) {}

  transaction<T>(work: (trx: LeasesTx) => Promise<T>): Promise<T> {
    return this.knex.transaction(work);
  }

  /**
   * Renews the lease of each named run the worker holds (`worker_id`, `attempt`, a lease at all) and
   * answers those with their status and whether they changed since `since` (null: ever) and since the
   * worker claimed them (it was handed them as they were then).
   * A named run it does not hold is left alone. Ids must be UUIDs.
   */
  async renew(workerId: string, named: readonly NamedRun[], leaseSeconds: number, since: Date | null): Promise<HeldRun[]> {
    if (named.length === 0) return [];
    const result = await this.knex.raw<{ rows: HeldRun[] }>(
      `WITH named AS (${NAMED})
       UPDATE runs r SET lease_expires_at = ${LEASE_END}
       FROM named WHERE r.id = named.run_id AND r.attempt = named.attempt AND r.worker_id = ? AND r.lease_expires_at IS NOT NULL
       RETURNING r.id, r.status, r.updated_at > greatest(coalesce(?::timestamptz, '-infinity'), r.claimed_at) AS changed`,
      [namedJson(named), leaseSeconds, workerId, since],
    );
    return result.rows;
  }

  /** Claims up to `limit` queued runs for the worker (see CLAIM): one statement, committing on its own. */
  async claim(workerId: string, limit: number, leaseSeconds: number): Promise<ClaimedRow[]> {
    const result = await this.knex.raw<{ rows: ClaimedRow[] }>(CLAIM, [limit, workerId, leaseSeconds]);
    return result.rows;
  }

  /** Up to `limit` runs whose lease expired, oldest expiry first, locked (rows another transaction holds are skipped). */
  async lockExpired(trx: LeasesTx, limit: number): Promise<EndingLease[]> {
    const result = await trx.raw<{ rows: EndingLease[] }>(
      `SELECT ${ENDING_COLUMNS} FROM runs r WHERE r.lease_expires_at < now()
       ORDER BY r.lease_expires_at LIMIT ? FOR UPDATE OF r SKIP LOCKED`,
      [limit],
    );
    return result.rows;
  }

  /** The named runs the worker holds, locked: what it hands back. */
  async lockHeld(trx: LeasesTx, workerId: string, named: readonly NamedRun[]): Promise<EndingLease[]> {
    if (named.length === 0) return [];
    const result = await trx.raw<{ rows: EndingLease[] }>(
      `WITH named AS (${NAMED})
       SELECT ${ENDING_COLUMNS} FROM runs r JOIN named ON r.id = named.run_id AND r.attempt = named.attempt
       WHERE r.worker_id = ? AND r.lease_expires_at IS NOT NULL
       FOR UPDATE OF r`,
      [namedJson(named), workerId],
    );
    return result.rows;
  }

  /**
   * Back to the queue (a paused run stays paused, and is queued on resume): no worker, no lease, not
   * started, so another worker's claim starts it afresh.
   */
  async requeue(trx: LeasesTx, run: EndingLease): Promise<void> {
    await trx('runs')
      .where({ id: run.id })
      .update({
        status: run.status === 'paused' ? 'paused' : 'queued',
        worker_id: null,
        lease_expires_at: null,
        started_at: null,
        claimed_at: null,
        updated_at: trx.fn.now(),
      });
  }

  /** Fails a held run: finished now, its lease ended, `error_json` saying why. */
  async fail(trx: LeasesTx, runId: string, error: Record<string, unknown>): Promise<void> {
    await trx('runs')
      .where({ id: runId })
      .update({
        status: 'failed',
        finished_at: trx.fn.now(),
        lease_expires_at: null,
        paused_at: null,
        error_json: JSON.stringify(error),
        updated_at: trx.fn.now(),
      });
  }

  /** Ends the lease of runs that finished while held (a user's cancel), changing nothing else. */
  async clearLeases(trx: LeasesTx, runIds: readonly string[]): Promise<void> {
    if (runIds.length === 0) return;
    await trx('runs').whereIn('id', runIds).update({ lease_expires_at: null });
  }

  /**
   * Locks a run just claimed, if the worker still holds it in `running` in that attempt (nothing moved it
   * between the claim and now).
   */
  async lockClaimed(trx: LeasesTx, runId: string, workerId: string, attempt: number): Promise<boolean> {
    const row = await trx('runs')
      .where({ id: runId, worker_id: workerId, attempt, status: 'running' })
      .whereNotNull('lease_expires_at')
      .forUpdate()
      .first('id');
    return row !== undefined;
  }

  appendEvent(trx: LeasesTx, runId: string, event: DaemonEvent): Promise<number> {
    return appendDaemonEvent(trx, runId, event);
  }
}
