import type { Knex } from 'knex';
import { auditInsertFrom, type AuditRow } from '../../audit/audit-repo.js';
import type { FlowDefinition } from '../../../shared/flows/definition.js';
import { Coalescer, type CoalescerOptions, type Settled } from '../../db/coalescer.js';
import { NotifiedCache } from '../../db/notified-cache.js';
import { prepared, queryPrepared } from '../../db/prepared.js';
import type { SqlPart } from '../../db/sql-part.js';
import type { AdmissionCompanion, TriggerSource } from './run-admission.js';
import type { RunRow } from './run-view.js';

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

/** The devices a run will target: admission writes the run only if every one is live where it may be used. */
export interface TargetDevices {
  readonly orgId: string;
  /** Distinct, lower-case UUIDs. */
  readonly ids: readonly string[];
}

export interface NewRun {
  readonly id: string;
  readonly org_id: string;
  readonly flow_id: string;
  readonly flow_version: number;
  readonly flow_name: string;
  readonly name: string;
  readonly params: Record<string, unknown>;
  readonly targets: Record<string, string[]>;
  readonly trigger_source: TriggerSource;
  readonly trigger_details: Record<string, unknown>;
  readonly workflow_id: string;
  readonly created_by: string | null;
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
    paused_at: null,
    finished_at: null,
    cancelled_at: null,
    cancelled_by: null,
    deleted_at: null,
    deleted_by: null,
  };
}

/** The organizations whose resources `?` may use: itself, and the shared organization if one is active. */
const READABLE_ORG = '(%s = ? OR %s = (SELECT o.id FROM organizations o WHERE o.is_shared AND o.is_active))';
const readable = (column: string) => READABLE_ORG.replaceAll('%s', column);

const RUN_INSERT_COLUMNS = `id, org_id, flow_id, flow_version, flow_name, name, status, params_json, targets_json,
        trigger_source, trigger_details_json, workflow_id, created_by, updated_by`;
const RUN_VALUES = `?::uuid, ?::uuid, ?::uuid, ?::integer, ?, ?, 'queued', ?::jsonb, ?::jsonb, ?, ?::jsonb, ?, ?, ?`;
const LIVE_DEVICES = `(SELECT count(*) FROM devices d WHERE d.id = ANY(?::uuid[]) AND d.deleted_at IS NULL AND ${readable('d.org_id')}) = ?::bigint`;

/** One admission's insert, waiting for its statement. */
interface PendingInsert {
  readonly run: NewRun;
  readonly devices: TargetDevices;
  readonly entry: AuditRow;
  readonly companion: AdmissionCompanion | undefined;
}

type InsertOutcome = RunRow | 'not_admitted' | 'gone';

function runBindings(run: NewRun): Knex.Value[] {
  return [
    run.id,
    run.org_id,
    run.flow_id,
    run.flow_version,
    run.flow_name,
    run.name,
    JSON.stringify(run.params),
    JSON.stringify(run.targets),
    run.trigger_source,
    JSON.stringify(run.trigger_details),
    run.workflow_id,
    run.created_by,
    run.created_by,
  ];
}

/**
 * One admission's common table expressions, their names starting with `prefix`: the run and its
 * `run.started` entry, atomic without a transaction of the caller's, with a companion's parts around them.
 * `admitted` holds one row only when every target device is live in the organization or the shared one (so
 * an unknown device costs no round trip of its own); a gate selects from it, and the run is written from
 * the gate's row, or from `admitted` when there is no gate.
 */
function admissionCtes(prefix: string, item: PendingInsert): SqlPart {
  const names = { admitted: `${prefix}admitted`, run: `${prefix}run` };
  const gate = item.companion?.gate?.(names);
  const after = (item.companion?.after ?? []).map((part) => part(names));
  const entry = auditInsertFrom(names.run, item.entry);
  const sql = `${names.admitted} AS (SELECT 1 AS ok WHERE ${LIVE_DEVICES})${gate ? `, ${prefix}gate AS (${gate.sql})` : ''}, ${names.run} AS (
    INSERT INTO runs (${RUN_INSERT_COLUMNS})
      SELECT ${RUN_VALUES} FROM ${gate ? `${prefix}gate` : names.admitted}
      RETURNING created_at
  ), ${prefix}entry AS (${entry.sql})${after.map((part, i) => `, ${prefix}after_${i} AS (${part.sql})`).join('')}`;
  const bindings = [
    [...item.devices.ids],
    item.devices.orgId,
    item.devices.ids.length,
    ...(gate?.bindings ?? []),
    ...runBindings(item.run),
    ...entry.bindings,
    ...after.flatMap((part) => part.bindings),
  ];
  return { sql, bindings };
}

/** The prepared statement's name for `count` admissions of one companion shape (its text depends on nothing else). */
function statementName(companion: AdmissionCompanion | undefined, count: number): string {
  const single = companion ? `svc_admission_insert_${companion.name}` : 'svc_admission_insert';
  return count === 1 ? single : `${single}_x${count}`;
}

/**
 * Admission statements in flight at once, how many admissions one carries at most, and how many must
 * wait before a second starts beside the first. One at a time leaves the database's second core idle
 * while the statement runs; a second statement with only an admission or two costs more CPU (its round
 * trip, commit and lock traffic) than it saves. Measured on the 2-core bench host (webhook triggers from
 * 16 senders): accepted triggers 0.48-0.49 of a bare INSERT with one in flight, 0.54-0.59 with these.
 */
export const ADMISSION_BATCHING: CoalescerOptions = { inFlight: 2, maxBatch: 32, minBatchWhileBusy: 6 };

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

  constructor(
    private readonly flows: NotifiedCache<AdmissionFlow> = new NotifiedCache(),
    private readonly batching: CoalescerOptions = ADMISSION_BATCHING,
  ) {}

  /** A live flow of the organization or the shared one, joined to version `version` (null: the newest). */
  async flowWithVersion(db: Knex | Knex.Transaction, orgId: string, flowId: string, version: number | null): Promise<AdmissionFlow | undefined> {
    return this.flows.through(`${orgId} ${flowId} ${version ?? ''}`, async () => {
      const { rows } = await db.raw(
        `SELECT f.id, f.org_id, f.name, f.manual_runs_enabled, f.latest_version, v.version, v.definition_json
           FROM flows f
           LEFT JOIN flow_versions v ON v.flow_id = f.id AND v.version = COALESCE(?::integer, f.latest_version)
          WHERE f.id = ? AND f.deleted_at IS NULL AND ${readable('f.org_id')}`,
        [version, flowId, orgId],
      ).options(prepared('svc_admission_flow'));
      return (rows as AdmissionFlow[])[0];
    });
  }

  /** Those of `ids` (UUIDs) that name live devices of the organization or the shared one: for a refusal's answer. */
  async liveDevices(db: Knex | Knex.Transaction, orgId: string, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const { rows } = await db.raw(`SELECT d.id FROM devices d WHERE d.id = ANY(?::uuid[]) AND d.deleted_at IS NULL AND ${readable('d.org_id')}`, [[...ids], orgId]);
    return new Set((rows as { id: string }[]).map((row) => row.id));
  }

  /**
   * The insert; 'not_admitted' when a target device is not live or the companion's gate let nothing
   * through, 'gone' when the flow row was purged since it was read (the foreign key refuses the run).
   * Outside a transaction, inserts that arrive while others are being written share the next statement
   * (see `Coalescer`); one that fails as a whole is retried one admission per statement, so each gets its
   * own outcome.
   */
  async insert(db: Knex | Knex.Transaction, run: NewRun, devices: TargetDevices, entry: AuditRow, companion?: AdmissionCompanion): Promise<InsertOutcome> {
    const item: PendingInsert = { run, devices, entry, companion };
    if (db.isTransaction) return this.insertOne(db, item);
    const shape = statementName(companion, 1);
    let byShape = this.coalescers.get(db);
    if (!byShape) this.coalescers.set(db, (byShape = new Map()));
    let coalescer = byShape.get(shape);
    if (!coalescer) byShape.set(shape, (coalescer = new Coalescer((items) => this.insertMany(db, items), this.batching)));
    return coalescer.submit(item);
  }

  private async insertOne(db: Knex | Knex.Transaction, item: PendingInsert): Promise<InsertOutcome> {
    const ctes = admissionCtes('', item);
    try {
      const rows = await queryPrepared<{ created_at: Date }>(db, statementName(item.companion, 1), () => `WITH ${ctes.sql} SELECT created_at FROM run`, ctes.bindings);
      const written = rows[0];
      return written ? newRunRow(item.run, written.created_at) : 'not_admitted';
    } catch (error) {
      if ((error as { code?: unknown }).code === '23503') return 'gone';
      throw error;
    }
  }

  /** Items of one companion shape in one statement; `created_at` comes back per item written. */
  private async insertMany(db: Knex, items: readonly PendingInsert[]): Promise<Settled<InsertOutcome>[]> {
    if (items.length === 1) return [await settle(this.insertOne(db, items[0]!))];
    const parts = items.map((item, i) => admissionCtes(`a${i}_`, item));
    const sql = () => `WITH ${parts.map((part) => part.sql).join(',\n')}
      ${items.map((_, i) => `SELECT ${i} AS item, created_at FROM a${i}_run`).join(' UNION ALL ')}`;
    let rows: { item: number; created_at: Date }[];
    try {
      rows = await queryPrepared(db, statementName(items[0]!.companion, items.length), sql, parts.flatMap((part) => part.bindings));
    } catch (error) {
      // The database refused the statement (a purged flow's foreign key, a deadlock between two statements'
      // idempotency keys, …): each alone, with its own outcome. Unreachable, it would refuse each again.
      if (!refusedByDatabase(error)) return items.map(() => ({ ok: false, error }));
      return Promise.all(items.map((item) => settle(this.insertOne(db, item))));
    }
    const createdAt = new Map(rows.map((row) => [Number(row.item), row.created_at]));
    return items.map((item, i) => {
      const at = createdAt.get(i);
      return { ok: true, value: at ? newRunRow(item.run, at) : 'not_admitted' };
    });
  }
}

async function settle<R>(work: Promise<R>): Promise<Settled<R>> {
  try {
    return { ok: true, value: await work };
  } catch (error) {
    return { ok: false, error };
  }
}

/** An error the server answered with its SQLSTATE, other than a lost connection (08) or a shutdown (57). */
function refusedByDatabase(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !code.startsWith('08') && !code.startsWith('57');
}
