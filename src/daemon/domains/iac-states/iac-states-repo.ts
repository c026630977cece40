import type { Knex } from 'knex';
import type { LockInfo } from '../../../shared/api/iac-states.js';
import { pageWithTotal } from '../../db/page.js';

export type IacTx = Knex.Transaction;

export interface IacStateRow {
  readonly id: string;
  readonly org_id: string;
  readonly name: string;
  readonly latest_version: number;
  readonly lock_id: string | null;
  readonly lock_json: LockInfo | null;
  readonly locked_at: Date | null;
  readonly locked_by: string | null;
  readonly lock_run_id: string | null;
  readonly lock_step_id: string | null;
  /** The run holding the state from its plan until it applies or ends (`hold_until_apply`), and the step that asked. */
  readonly hold_run_id: string | null;
  readonly hold_step_id: string | null;
  readonly held_at: Date | null;
  readonly created_at: Date;
  readonly updated_at: Date;
}

/** A state with what its newest version says of itself (no document). */
export interface IacStateSummaryRow extends IacStateRow {
  readonly serial: string | number | null;
  readonly lineage: string | null;
  readonly size: number | null;
  readonly sha256: string | null;
}

export interface IacVersionRow {
  readonly version: number;
  readonly serial: string | number | null;
  readonly lineage: string | null;
  readonly size: number;
  readonly sha256: string;
  readonly source: 'backend' | 'import' | 'rollback';
  readonly rolled_back_from: number | null;
  readonly created_by: string | null;
  readonly run_id: string | null;
  readonly step_id: string | null;
  readonly created_at: Date;
}

export interface SealedVersionRow {
  readonly key_id: string;
  readonly nonce: Buffer;
  readonly ciphertext: Buffer;
  readonly auth_tag: Buffer;
}

export interface NewVersion extends SealedVersionRow {
  readonly state_id: string;
  readonly version: number;
  readonly serial: number | null;
  readonly lineage: string | null;
  readonly size: number;
  readonly sha256: string;
  readonly source: IacVersionRow['source'];
  readonly rolled_back_from: number | null;
  readonly created_by: string | null;
  readonly run_id: string | null;
  readonly step_id: string | null;
}

/** Who takes a lock: a subject, and a run token's run and step when one does. */
export interface LockHolder {
  readonly by: string | null;
  readonly runId: string | null;
  readonly stepId: string | null;
}

const STATE_COLUMNS = [
  's.id',
  's.org_id',
  's.name',
  's.latest_version',
  's.lock_id',
  's.lock_json',
  's.locked_at',
  's.locked_by',
  's.lock_run_id',
  's.lock_step_id',
  's.hold_run_id',
  's.hold_step_id',
  's.held_at',
  's.created_at',
  's.updated_at',
];
const SUMMARY_COLUMNS = [...STATE_COLUMNS, 'v.serial', 'v.lineage', 'v.size', 'v.sha256'];
const VERSION_COLUMNS = [
  'version',
  'serial',
  'lineage',
  'size',
  'sha256',
  'source',
  'rolled_back_from',
  'created_by',
  'run_id',
  'step_id',
  'created_at',
];

/**
 * Whether the run's committed definition (`fv`) has a step `$step` that is the `iac.apply` of the hold's
 * plan step (`$plan`). `\\?` is jsonpath's filter, escaped from knex's bindings.
 */
const APPLY_OF_PLAN = `jsonb_path_exists(fv.definition_json, '$.steps[*] \\? (@.id == $step && @.handler == "iac.apply" && @.config.plan_step == $plan)', jsonb_build_object('step', ?::text, 'plan', s.hold_step_id))`;

/** The `iac_states` and `iac_state_versions` tables. A state is the organization's alone (never shared). */
export class IacStatesRepo {
  constructor(private readonly knex: Knex) {}

  transaction<T>(work: (trx: IacTx) => Promise<T>): Promise<T> {
    return this.knex.transaction(work);
  }

  #summaries(db: Knex | IacTx): Knex.QueryBuilder {
    return db({ s: 'iac_states' }).leftJoin({ v: 'iac_state_versions' }, (j) =>
      j.on('v.state_id', 's.id').andOn('v.version', 's.latest_version'),
    );
  }

  summary(orgId: string, name: string): Promise<IacStateSummaryRow | undefined> {
    return this.#summaries(this.knex).where({ 's.org_id': orgId, 's.name': name }).first(SUMMARY_COLUMNS);
  }

  summaryIn(trx: IacTx, stateId: string): Promise<IacStateSummaryRow | undefined> {
    return this.#summaries(trx).where('s.id', stateId).first(SUMMARY_COLUMNS);
  }

  list(
    orgId: string,
    q: string | undefined,
    page: { limit: number; offset: number },
  ): Promise<{ rows: IacStateSummaryRow[]; total: number }> {
    const filtered = this.#summaries(this.knex).where('s.org_id', orgId);
    if (q) filtered.whereRaw(`strpos(lower(s.name), lower(?)) > 0`, [q]);
    return pageWithTotal<IacStateSummaryRow>(this.knex, filtered, SUMMARY_COLUMNS, [{ column: 's.name', order: 'asc' }], page);
  }

  /** The state, locked for the rest of the transaction. */
  lock(trx: IacTx, orgId: string, name: string): Promise<IacStateRow | undefined> {
    return trx({ s: 'iac_states' }).where({ 's.org_id': orgId, 's.name': name }).forUpdate().first(STATE_COLUMNS);
  }

  /** The state, made if it is not there yet, locked for the rest of the transaction. */
  async lockOrCreate(trx: IacTx, orgId: string, name: string, by: string | null): Promise<IacStateRow> {
    await trx('iac_states').insert({ org_id: orgId, name, created_by: by }).onConflict(['org_id', 'name']).ignore();
    return (await this.lock(trx, orgId, name))!;
  }

  async setLock(trx: IacTx, stateId: string, info: LockInfo, holder: LockHolder): Promise<void> {
    await trx('iac_states')
      .where({ id: stateId })
      .update({
        lock_id: info.ID,
        lock_json: JSON.stringify(info),
        locked_at: trx.fn.now(),
        locked_by: holder.by,
        lock_run_id: holder.runId,
        lock_step_id: holder.stepId,
        updated_at: trx.fn.now(),
      });
  }

  async clearLock(trx: IacTx, stateId: string): Promise<void> {
    await trx('iac_states').where({ id: stateId }).update({
      lock_id: null,
      lock_json: null,
      locked_at: null,
      locked_by: null,
      lock_run_id: null,
      lock_step_id: null,
      updated_at: trx.fn.now(),
    });
  }

  async setHold(trx: IacTx, stateId: string, runId: string, stepId: string): Promise<void> {
    await trx('iac_states')
      .where({ id: stateId })
      .update({ hold_run_id: runId, hold_step_id: stepId, held_at: trx.fn.now(), updated_at: trx.fn.now() });
  }

  async clearHold(trx: IacTx, stateId: string): Promise<void> {
    await trx('iac_states')
      .where({ id: stateId })
      .update({ hold_run_id: null, hold_step_id: null, held_at: null, updated_at: trx.fn.now() });
  }

  /** The states a step of a run still has locked (its tool did not let go), locked for the rest of the transaction. */
  lockedByStep(trx: IacTx, runId: string, stepId: string): Promise<IacStateRow[]> {
    return trx({ s: 'iac_states' }).where({ 's.lock_run_id': runId, 's.lock_step_id': stepId }).forUpdate().select(STATE_COLUMNS);
  }

  /**
   * The states a run holds that its step `stepId`, ending, releases (locked for the rest of the
   * transaction): the step wrote them since the hold was taken, or it is the run's `iac.apply` naming the
   * holding step as its `plan_step` (an apply with nothing to change writes no state). The step's handler
   * and configuration are read from the committed version the run was admitted with.
   */
  releasedByStep(trx: IacTx, runId: string, stepId: string): Promise<IacStateRow[]> {
    return trx({ s: 'iac_states' })
      .where('s.hold_run_id', runId)
      .whereNot('s.hold_step_id', stepId)
      .where((released) =>
        released
          .whereExists((versions) =>
            versions
              .select(1)
              .from({ v: 'iac_state_versions' })
              .whereRaw('v.state_id = s.id AND v.created_at >= s.held_at')
              .where({ 'v.run_id': runId, 'v.step_id': stepId }),
          )
          .orWhereExists((apply) =>
            apply
              .select(1)
              .from({ r: 'runs' })
              .join({ fv: 'flow_versions' }, (on) => on.on('fv.flow_id', 'r.flow_id').andOn('fv.version', 'r.flow_version'))
              .where('r.id', runId)
              .whereRaw(APPLY_OF_PLAN, [stepId]),
          ),
      )
      .forUpdate()
      .select(STATE_COLUMNS);
  }

  async insertVersion(trx: IacTx, version: NewVersion): Promise<IacVersionRow> {
    const [row] = await trx('iac_state_versions').insert(version).returning(VERSION_COLUMNS);
    await trx('iac_states').where({ id: version.state_id }).update({ latest_version: version.version, updated_at: trx.fn.now() });
    return row as IacVersionRow;
  }

  sealed(db: Knex | IacTx, stateId: string, version: number): Promise<(SealedVersionRow & { version: number }) | undefined> {
    return db('iac_state_versions').where({ state_id: stateId, version }).first('version', 'key_id', 'nonce', 'ciphertext', 'auth_tag');
  }

  /** A state and one of its sealed versions, read without a transaction. */
  async stateWithSealed(
    orgId: string,
    name: string,
    version: number | 'latest',
  ): Promise<{ state: IacStateSummaryRow; sealed: (SealedVersionRow & { version: number }) | undefined } | undefined> {
    const state = await this.summary(orgId, name);
    if (!state) return undefined;
    const wanted = version === 'latest' ? state.latest_version : version;
    return { state, sealed: wanted > 0 ? await this.sealed(this.knex, state.id, wanted) : undefined };
  }

  versions(stateId: string, page: { limit: number; offset: number }): Promise<{ rows: IacVersionRow[]; total: number }> {
    const filtered = this.knex('iac_state_versions').where({ state_id: stateId });
    return pageWithTotal<IacVersionRow>(this.knex, filtered, VERSION_COLUMNS, [{ column: 'version', order: 'desc' }], page);
  }

  async delete(trx: IacTx, stateId: string): Promise<number> {
    const versions = await trx('iac_state_versions').where({ state_id: stateId }).count<{ n: string | number }[]>('* as n');
    await trx('iac_states').where({ id: stateId }).delete();
    return Number(versions[0]?.n ?? 0);
  }
}
