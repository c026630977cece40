import type { Knex } from 'knex';
import { auditInsertFrom, type AuditRow } from '../../audit/audit-repo.js';
import type { FlowDefinition } from '../../../shared/flows/definition.js';
import { prepared } from '../../db/prepared.js';
import type { SqlPart } from '../../db/sql-part.js';
import type { AdmissionCompanion } from './run-admission.js';
import { RUN_COLUMNS, type RunRow } from './run-view.js';

/** A flow as admission sees it, with the version it would run (absent when that version does not exist). */
export interface AdmissionFlow {
  readonly id: string;
  readonly org_id: string;
  readonly name: string;
  readonly manual_runs_enabled: boolean;
  readonly latest_version: number;
  readonly version: number | null;
  readonly definition_json: FlowDefinition | null;
  /** Those of the ids asked about that name live devices admission may target. */
  readonly live_device_ids: string[];
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
  readonly trigger_source: string;
  readonly trigger_details: Record<string, unknown>;
  readonly workflow_id: string;
  readonly created_by: string | null;
}

/** The organizations whose resources `?` may use: itself, and the shared organization if one is active. */
const READABLE_ORG = '(%s = ? OR %s = (SELECT o.id FROM organizations o WHERE o.is_shared AND o.is_active))';
const readable = (column: string) => READABLE_ORG.replaceAll('%s', column);

const RUN_INSERT_COLUMNS = `id, org_id, flow_id, flow_version, flow_name, name, status, params_json, targets_json,
        trigger_source, trigger_details_json, workflow_id, created_by, updated_by`;
const RUN_VALUES = `?::uuid, ?::uuid, ?::uuid, ?::integer, ?, ?, 'queued', ?::jsonb, ?::jsonb, ?, ?::jsonb, ?, ?, ?`;

/**
 * The run and its `run.started` entry in one statement, atomic without a transaction of the caller's,
 * with a companion's parts around them: with a gate, the run is written only from the gate's row.
 */
function insertRunSql(entry: SqlPart, companion: AdmissionCompanion | undefined): string {
  const gate = companion?.gate ? `gate AS (${companion.gate.sql}), ` : '';
  const after = (companion?.after ?? []).map((part, i) => `, after_${i} AS (${part.sql})`).join('');
  return `WITH ${gate}run AS (
    INSERT INTO runs (${RUN_INSERT_COLUMNS})
      SELECT ${RUN_VALUES}${companion?.gate ? ' FROM gate' : ''}
      RETURNING ${RUN_COLUMNS.join(', ')}
  ), entry AS (${entry.sql})${after}
  SELECT * FROM run`;
}

/**
 * The read and the write of run admission, each one round trip in the caller's transaction (or none): the flow
 * with its version and the devices, then the insert. The shared organization is looked up inside the query
 * rather than through the cached lookup, which would need a second connection while the transaction
 * holds the only one PGlite has.
 */
export class AdmissionRepo {
  /**
   * A live flow of the organization or the shared one, joined to version `version` (null: the newest),
   * with which of `deviceIds` (UUIDs) are live devices of the organization or the shared one: one round
   * trip for everything admission checks, on the webhook's hot path.
   */
  async flowWithVersion(trx: Knex | Knex.Transaction, orgId: string, flowId: string, version: number | null, deviceIds: readonly string[]): Promise<AdmissionFlow | undefined> {
    const { rows } = await trx.raw(
      `SELECT f.id, f.org_id, f.name, f.manual_runs_enabled, f.latest_version, v.version, v.definition_json,
              ARRAY(SELECT d.id FROM devices d WHERE d.id = ANY(?::uuid[]) AND d.deleted_at IS NULL AND ${readable('d.org_id')}) AS live_device_ids
         FROM flows f
         LEFT JOIN flow_versions v ON v.flow_id = f.id AND v.version = COALESCE(?::integer, f.latest_version)
        WHERE f.id = ? AND f.deleted_at IS NULL AND ${readable('f.org_id')}`,
      [[...deviceIds], orgId, version, flowId, orgId],
    ).options(prepared('svc_admission_flow'));
    return (rows as AdmissionFlow[])[0];
  }

  /**
   * The insert, or undefined when the flow row was purged since it was read (the foreign key refuses the
   * run; admission then answers as for a flow that is not there).
   */
  async insertOrGone(trx: Knex | Knex.Transaction, run: NewRun, entry: AuditRow, companion?: AdmissionCompanion): Promise<RunRow | 'gate_closed' | undefined> {
    try {
      return await this.insert(trx, run, entry, companion);
    } catch (error) {
      if ((error as { code?: unknown }).code === '23503') return undefined;
      throw error;
    }
  }

  /** The run and its entry (and a companion's rows); 'gate_closed' when the companion's gate let nothing through. */
  async insert(trx: Knex | Knex.Transaction, run: NewRun, entry: AuditRow, companion?: AdmissionCompanion): Promise<RunRow | 'gate_closed'> {
    const runBindings = [
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
    const started = auditInsertFrom('run', entry);
    const bindings = [
      ...(companion?.gate?.bindings ?? []),
      ...runBindings,
      ...started.bindings,
      ...(companion?.after ?? []).flatMap((part) => part.bindings),
    ];
    const name = companion ? `svc_admission_insert_${companion.name}` : 'svc_admission_insert';
    const { rows } = await trx.raw(insertRunSql(started, companion), bindings).options(prepared(name));
    return (rows as RunRow[])[0] ?? 'gate_closed';
  }
}
