import type { Knex } from 'knex';
import type { FlowDefinition } from '../../../../shared/flows/definition.js';

export interface FlowExchangeRow {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly is_pinned: boolean;
  readonly manual_runs_enabled: boolean;
  readonly draft_json: FlowDefinition;
  readonly latest_version: number;
  /** The newest committed version's definition; null before the first commit. */
  readonly committed_json: FlowDefinition | null;
}

/** The settings of a flow as configuration exchange writes them. */
export interface FlowSettings {
  readonly name: string;
  readonly description: string | null;
  readonly is_pinned: boolean;
  readonly manual_runs_enabled: boolean;
  readonly draft_json: FlowDefinition;
  readonly draft_dirty: boolean;
}

/** jsonb comes back parsed from pg; parse it here too should a driver hand back text. */
function parsed<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

/** An organization's live flows with their newest committed version, on the handle it is given. */
export class FlowsRowsRepo {
  async live(db: Knex, orgId: string): Promise<FlowExchangeRow[]> {
    const rows = (await db('flows as f')
      .leftJoin('flow_versions as v', (j) => j.on('v.flow_id', 'f.id').andOn('v.version', 'f.latest_version'))
      .where('f.org_id', orgId)
      .whereNull('f.deleted_at')
      .orderByRaw('f.name COLLATE "C"')
      .select(
        'f.id',
        'f.name',
        'f.description',
        'f.is_pinned',
        'f.manual_runs_enabled',
        'f.draft_json',
        'f.latest_version',
        'v.definition_json as committed_json',
      )) as Record<string, unknown>[];
    return rows.map((r) => ({
      ...(r as unknown as FlowExchangeRow),
      draft_json: parsed<FlowDefinition>(r.draft_json),
      committed_json: r.committed_json === null ? null : parsed<FlowDefinition>(r.committed_json),
    }));
  }

  /** The live flow of the organization by name, locked until the apply's transaction ends. */
  async lock(db: Knex, orgId: string, name: string): Promise<{ id: string; org_id: string; latest_version: number }> {
    const row = await db('flows')
      .where({ org_id: orgId, name })
      .whereNull('deleted_at')
      .forUpdate()
      .first('id', 'org_id', 'latest_version');
    if (!row) throw new Error(`flow ${name} vanished during the apply`);
    return row as { id: string; org_id: string; latest_version: number };
  }

  async insert(db: Knex, orgId: string, settings: FlowSettings, by: string | null): Promise<string> {
    const [row] = await db('flows')
      .insert({ org_id: orgId, ...stored(settings), created_by: by, updated_by: by })
      .returning('id');
    return (row as { id: string }).id;
  }

  async update(db: Knex, id: string, settings: Partial<FlowSettings> & { latest_version?: number }, by: string | null): Promise<void> {
    await db('flows')
      .where({ id })
      .update({ ...stored(settings), updated_by: by, updated_at: db.fn.now() });
  }

  async insertVersion(
    db: Knex,
    flowId: string,
    version: number,
    definition: FlowDefinition,
    message: string,
    by: string | null,
  ): Promise<string> {
    const [row] = await db('flow_versions')
      .insert({ flow_id: flowId, version, definition_json: JSON.stringify(definition), message, committed_by: by })
      .returning('id');
    return (row as { id: string }).id;
  }

  /** Whether a live webhook endpoint still triggers the flow (the flows domain's delete guard refuses then too). */
  async triggeredByWebhook(db: Knex, flowId: string): Promise<boolean> {
    return (await db('webhook_endpoints').where({ flow_id: flowId }).whereNull('deleted_at').first('id')) !== undefined;
  }

  async softDelete(db: Knex, id: string, by: string | null): Promise<void> {
    await db('flows').where({ id }).update({ deleted_at: db.fn.now(), deleted_by: by, updated_at: db.fn.now(), updated_by: by });
  }
}

function stored(settings: Partial<FlowSettings> & { latest_version?: number }): Record<string, unknown> {
  const { draft_json, ...rest } = settings;
  return draft_json === undefined ? rest : { ...rest, draft_json: JSON.stringify(draft_json) };
}
