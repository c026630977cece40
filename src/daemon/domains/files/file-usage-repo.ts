import type { Knex } from 'knex';
import { likeEscaped } from './files-repo.js';

export interface FlowUse {
  readonly flow_id: string;
  readonly name: string;
  readonly versions: number[];
  readonly draft: boolean;
}

export interface RunUse {
  readonly run_id: string;
  readonly name: string;
  readonly status: string;
  readonly flow_version: number;
}

export interface ProviderUse {
  readonly provider_id: string;
  readonly name: string;
}

/**
 * Who uses a file: a flow whose draft or committed version names the file's id anywhere in its definition
 * (a step's `file_id`, `file_ids`, an image of an upgrade step, ...), and an unfinished run of such a
 * version. A UUID does not occur by chance, so a text search of the definition finds every place a
 * handler's config may name it, without the files module knowing each handler's fields.
 */
export class FileUsageRepo {
  constructor(private readonly knex: Knex) {}

  async flows(orgIds: readonly string[] | undefined, fileId: string, db: Knex | Knex.Transaction = this.knex): Promise<FlowUse[]> {
    const needle = `%${likeEscaped(fileId)}%`;
    const rows: { flow_id: string; name: string; version: number | null; draft: boolean }[] = await db
      .select('f.id as flow_id', 'f.name', 'v.version', db.raw(`(f.draft_json::text LIKE ? ESCAPE '\\') AS draft`, [needle]))
      .from('flows as f')
      .leftJoin('flow_versions as v', (j) =>
        j.on('v.flow_id', 'f.id').andOn(db.raw(`v.definition_json::text LIKE ? ESCAPE '\\'`, [needle])),
      )
      .modify((q) => {
        if (orgIds) q.whereIn('f.org_id', orgIds);
      })
      .whereNull('f.deleted_at')
      .where((q) => q.whereNotNull('v.version').orWhereRaw(`f.draft_json::text LIKE ? ESCAPE '\\'`, [needle]))
      .orderBy([{ column: 'f.name' }, { column: 'v.version' }]);
    const byFlow = new Map<string, FlowUse>();
    for (const row of rows) {
      const use = byFlow.get(row.flow_id) ?? { flow_id: row.flow_id, name: row.name, versions: [], draft: row.draft };
      if (row.version !== null) use.versions.push(row.version);
      byFlow.set(row.flow_id, use);
    }
    return [...byFlow.values()];
  }

  /** Live static inventory providers whose document is the file (docs/inventory-providers.md). */
  async providers(orgIds: readonly string[] | undefined, fileId: string, db: Knex | Knex.Transaction = this.knex): Promise<ProviderUse[]> {
    return db('inventory_providers')
      .whereNull('deleted_at')
      .whereRaw(`config_json->>'document_file_id' = ?`, [fileId])
      .modify((q) => {
        if (orgIds) q.whereIn('org_id', orgIds);
      })
      .orderBy('provider_id')
      .select('provider_id', 'name');
  }

  async runs(flows: readonly FlowUse[], db: Knex | Knex.Transaction = this.knex): Promise<RunUse[]> {
    const pairs = flows.flatMap((flow) => flow.versions.map((version) => [flow.flow_id, version] as const));
    if (pairs.length === 0) return [];
    return db('runs')
      .whereNull('finished_at')
      .whereNull('deleted_at')
      .where((q) => {
        for (const [flowId, version] of pairs) q.orWhere((p) => p.where({ flow_id: flowId, flow_version: version }));
      })
      .orderBy('created_at')
      .limit(100)
      .select('id as run_id', 'name', 'status', 'flow_version');
  }
}
