import type { Knex } from 'knex';
import type { AuditRow } from '../../audit/audit-repo.js';
import type { FlowDefinition } from '../../../shared/flows/definition.js';
import { Coalescer, type CoalescerOptions, type Settled } from '../../db/coalescer.js';
import { isDatabaseUnavailable } from '../../db/database-errors.js';
import { NotifiedCache } from '../../db/notified-cache.js';
import { prepared, queryPrepared } from '../../db/prepared.js';
import type { AdmissionCompanion } from './admission-companion.js';
import { AdmissionStatements, admissionInput, type PendingInsert } from './admission-statement.js';
import type { NewRun, TargetDevices } from './admission-rows.js';
import type { RunRow } from './run-view.js';

// The tests of admission import the row types from here.
export type { NewRun, TargetDevices } from './admission-rows.js';

/** A flow as admission sees it, with the version it would run (absent when that version does not exist). */
export interface AdmissionFlow {
  readonly id: string;
  readonly org_id: string;
  readonly name: string;
  readonly manual_runs_enabled: boolean;
  readonly latest_version: number;
  readonly version: number | null;
  readonly definition_json: FlowDefinition | null;
}

/**
 * The row just inserted, from what was written and the one value the database chose: the statement
 * returns only `created_at`, sparing both sides a copy of the JSON columns.
 */
function newRunRow(run: NewRun, createdAt: Date): RunRow {
  return {
    id: run.id,
    org_id: run.org_id,
    flow_id: run.flow_id,
    flow_version: run.flow_version,
    flow_name: run.flow_name,
    name: run.name,
    status: 'queued',
    params_json: run.params,
    targets_json: run.targets,
    trigger_source: run.trigger_source,
    trigger_details_json: run.trigger_details,
    workflow_id: run.workflow_id,
    created_by: run.created_by,
    updated_by: run.created_by,
    created_at: createdAt,
    updated_at: createdAt,
    started_at: null,
    worker_id: null,
    paused_at: null,
    finished_at: null,
    cancelled_at: null,
    cancelled_by: null,
    deleted_at: null,
    deleted_by: null,
    outputs_json: {},
    error_json: null,
  };
}

/** The organizations whose resources `?` may use: itself, and the shared organization if one is active. */
const READABLE_ORG = '(%s = ? OR %s = (SELECT o.id FROM organizations o WHERE o.is_shared AND o.is_active))';
const readable = (column: string) => READABLE_ORG.replaceAll('%s', column);

type InsertOutcome = RunRow | 'not_admitted' | 'gone';

/**
 * Admission statements in flight at once, how many admissions one carries at most, and how many must
 * wait before a second starts beside the first. One at a time leaves the database's second core idle
 * while the statement runs; a second statement with only an admission or two costs more CPU (its round
 * trip, commit and lock traffic) than it saves. Measured on the 2-core bench host (webhook triggers from
 * 16 senders, the set-wise statement): 0.78 and 0.78 of a bare INSERT with these, 0.71-0.78 from four
 * waiting, 0.66-0.70 from nine, 0.64-0.72 with three in flight from five.
 */
// Admissions waiting when a statement finds the database unreachable fail with it: each would otherwise
// wait for a statement of its own to fail the same way, past the 503's time budget.
export const ADMISSION_BATCHING: CoalescerOptions = {
  inFlight: 2,
  maxBatch: 32,
  minBatchWhileBusy: 6,
  failsWaiting: isDatabaseUnavailable,
};

/**
 * The read and the write of run admission. The flow with its version is read through a cache that every
 * change to flows, their versions or the shared organization empties (`svc_trigger_config`), so a steady
 * stream of runs costs one round trip each: the insert, which checks the devices itself. The shared
 * organization is looked up inside the queries rather than through the cached lookup, which would need a
 * second connection while a caller's transaction holds the only one PGlite has.
 */
export class AdmissionRepo {
  /** Per database handle, per companion shape: a statement carries admissions of one shape only. */
  private readonly coalescers = new WeakMap<Knex, Map<string, Coalescer<PendingInsert, InsertOutcome>>>();
  private readonly statements = new AdmissionStatements();

  constructor(
    private readonly flows: NotifiedCache<AdmissionFlow> = new NotifiedCache(),
    private readonly batching: CoalescerOptions = ADMISSION_BATCHING,
  ) {}

  /** A live flow of the organization or the shared one, joined to version `version` (null: the newest). */
  async flowWithVersion(
    db: Knex | Knex.Transaction,
    orgId: string,
    flowId: string,
    version: number | null,
  ): Promise<AdmissionFlow | undefined> {
    return this.flows.through(`${orgId} ${flowId} ${version ?? ''}`, async () => {
      const { rows } = await db
        .raw(
          `SELECT f.id, f.org_id, f.name, f.manual_runs_enabled, f.latest_version, v.version, v.definition_json
           FROM flows f
           LEFT JOIN flow_versions v ON v.flow_id = f.id AND v.version = COALESCE(?::integer, f.latest_version)
          WHERE f.id = ? AND f.deleted_at IS NULL AND ${readable('f.org_id')}`,
          [version, flowId, orgId],
        )
        .options(prepared('svc_admission_flow'));
      return (rows as AdmissionFlow[])[0];
    });
  }

  /** Those of `ids` (UUIDs) that name live devices of the organization or the shared one: for a refusal's answer. */
  async liveDevices(db: Knex | Knex.Transaction, orgId: string, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const { rows } = await db.raw(
      `SELECT d.id FROM devices d WHERE d.id = ANY(?::uuid[]) AND d.deleted_at IS NULL AND ${readable('d.org_id')}`,
      [[...ids], orgId],
    );
    return new Set((rows as { id: string }[]).map((row) => row.id));
  }

  /**
   * The insert; 'not_admitted' when a target device is not live or the companion's gate let nothing
   * through, 'gone' when the flow row was purged since it was read (the foreign key refuses the run).
   * Outside a transaction, inserts that arrive while others are being written share the next statement
   * (see `Coalescer`); one that fails as a whole is retried one admission per statement, so each gets its
   * own outcome.
   */
  async insert(
    db: Knex | Knex.Transaction,
    run: NewRun,
    devices: TargetDevices,
    entry: AuditRow,
    companion?: AdmissionCompanion,
  ): Promise<InsertOutcome> {
    const item: PendingInsert = { run, devices, entry, companion };
    if (db.isTransaction) return this.insertOne(db, item);
    const shape = companion?.shape.name ?? '';
    let byShape = this.coalescers.get(db);
    if (!byShape) this.coalescers.set(db, (byShape = new Map()));
    let coalescer = byShape.get(shape);
    if (!coalescer) byShape.set(shape, (coalescer = new Coalescer((items) => this.insertMany(db, items), this.batching)));
    return coalescer.submit(item);
  }

  private async insertOne(db: Knex | Knex.Transaction, item: PendingInsert): Promise<InsertOutcome> {
    try {
      return (await this.write(db, [item]))[0]!;
    } catch (error) {
      if ((error as { code?: unknown }).code === '23503') return 'gone';
      throw error;
    }
  }

  /** Admissions of one companion shape in one statement, which answers `created_at` per admission written. */
  private async write(db: Knex | Knex.Transaction, items: readonly PendingInsert[]): Promise<Exclude<InsertOutcome, 'gone'>[]> {
    const statement = this.statements.for(items[0]!.companion?.shape);
    const rows = await queryPrepared<{ item: number; created_at: Date }>(db, statement.prepared, [admissionInput(statement, items)]);
    const createdAt = new Map(rows.map((row) => [Number(row.item), row.created_at]));
    return items.map((item, i) => {
      const at = createdAt.get(i);
      return at ? newRunRow(item.run, at) : 'not_admitted';
    });
  }

  private async insertMany(db: Knex, items: readonly PendingInsert[]): Promise<Settled<InsertOutcome>[]> {
    if (items.length === 1) return [await settle(this.insertOne(db, items[0]!))];
    try {
      return (await this.write(db, items)).map((value) => ({ ok: true, value }));
    } catch (error) {
      // The database refused the statement (a purged flow's foreign key, a deadlock between two statements'
      // idempotency keys, …): each alone, with its own outcome. Unreachable, it would refuse each again.
      if (!refusedByDatabase(error)) return items.map(() => ({ ok: false, error }));
      return Promise.all(items.map((item) => settle(this.insertOne(db, item))));
    }
  }
}

async function settle<R>(work: Promise<R>): Promise<Settled<R>> {
  try {
    return { ok: true, value: await work };
  } catch (error) {
    return { ok: false, error };
  }
}

/** An error the server answered with its SQLSTATE, other than one that means the link or the server failed. */
function refusedByDatabase(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !code.startsWith('57') && !isDatabaseUnavailable(error);
}
