import type { Knex } from 'knex';

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

/** Each file's users, by file id; a file nobody uses has no entry. */
export type ByFile<T> = Map<string, T[]>;

/** A UUID as it appears in a definition's text (the daemon writes ids lower-case). */
const UUID_IN_TEXT = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

/** Unfinished runs named per file, at most. */
const RUNS_PER_FILE = 100;

/**
 * Who uses files: a flow whose draft or committed version names a file's id anywhere in its definition
 * (a step's `file_id`, `file_ids`, an image of an upgrade step, ...), an unfinished run of such a version,
 * and a static inventory provider reading it. A UUID does not occur by chance, so the ids in a
 * definition's text find every place a handler's config may name a file, without the files module knowing
 * each handler's fields. Each kind of user is one statement for any number of files: the definitions are
 * read once and their ids matched against the files', not searched once per file (a list page of 500
 * files made 1,500 statements, each reading every definition).
 */
export class FileUsageRepo {
  constructor(private readonly knex: Knex) {}

  /** Flows of `orgIds` (every organization's when undefined) naming any of `fileIds`. */
  async flows(
    orgIds: readonly string[] | undefined,
    fileIds: readonly string[],
    db: Knex | Knex.Transaction = this.knex,
  ): Promise<ByFile<FlowUse>> {
    if (fileIds.length === 0) return new Map();
    const inOrgs = orgIds ? 'AND f.org_id = ANY(?::uuid[])' : '';
    const { rows } = (await db.raw(
      `SELECT named.file_id, f.id AS flow_id, f.name, named.version
       FROM flows f
       CROSS JOIN LATERAL (
         SELECT m[1] AS file_id, NULL::integer AS version FROM regexp_matches(f.draft_json::text, ?, 'g') AS m
         UNION
         SELECT m[1], v.version FROM flow_versions v, regexp_matches(v.definition_json::text, ?, 'g') AS m WHERE v.flow_id = f.id
       ) AS named
       WHERE f.deleted_at IS NULL AND named.file_id = ANY(?::text[]) ${inOrgs}
       ORDER BY f.name, f.id, named.version NULLS FIRST`,
      [UUID_IN_TEXT, UUID_IN_TEXT, [...fileIds], ...(orgIds ? [[...orgIds]] : [])],
    )) as { rows: { file_id: string; flow_id: string; name: string; version: number | null }[] };
    const uses = new Map<string, Map<string, FlowUse>>();
    for (const row of rows) {
      const ofFile = uses.get(row.file_id) ?? new Map<string, FlowUse>();
      const use = ofFile.get(row.flow_id) ?? { flow_id: row.flow_id, name: row.name, versions: [], draft: false };
      ofFile.set(row.flow_id, row.version === null ? { ...use, draft: true } : { ...use, versions: [...use.versions, row.version] });
      uses.set(row.file_id, ofFile);
    }
    return new Map([...uses].map(([fileId, ofFile]) => [fileId, [...ofFile.values()]]));
  }

  /** Live static inventory providers whose document is one of the files (docs/inventory-providers.md). */
  async providers(
    orgIds: readonly string[] | undefined,
    fileIds: readonly string[],
    db: Knex | Knex.Transaction = this.knex,
  ): Promise<ByFile<ProviderUse>> {
    if (fileIds.length === 0) return new Map();
    const rows: (ProviderUse & { file_id: string })[] = await db('inventory_providers')
      .whereNull('deleted_at')
      .whereRaw(`config_json->>'document_file_id' = ANY(?::text[])`, [[...fileIds]])
      .modify((q) => {
        if (orgIds) q.whereIn('org_id', orgIds);
      })
      .orderBy('provider_id')
      .select(db.raw(`config_json->>'document_file_id' AS file_id`), 'provider_id', 'name');
    return groupByFile(rows, ({ provider_id, name }) => ({ provider_id, name }));
  }

  /** The unfinished runs of the flow versions that name each file, oldest first, RUNS_PER_FILE at most per file. */
  async runs(flows: ByFile<FlowUse>, db: Knex | Knex.Transaction = this.knex): Promise<ByFile<RunUse>> {
    const pairs = [...flows].flatMap(([file_id, uses]) =>
      uses.flatMap((use) => use.versions.map((version) => ({ file_id, flow_id: use.flow_id, version }))),
    );
    if (pairs.length === 0) return new Map();
    const { rows } = (await db.raw(
      `SELECT file_id, run_id, name, status, flow_version FROM (
         SELECT p.file_id, r.id AS run_id, r.name, r.status, r.flow_version, r.created_at,
           row_number() OVER (PARTITION BY p.file_id ORDER BY r.created_at, r.id) AS nth
         FROM jsonb_to_recordset(?::jsonb) AS p(file_id text, flow_id uuid, version integer)
         JOIN runs r ON r.flow_id = p.flow_id AND r.flow_version = p.version
         WHERE r.finished_at IS NULL AND r.deleted_at IS NULL
       ) AS numbered
       WHERE nth <= ?
       ORDER BY file_id, created_at, run_id`,
      [JSON.stringify(pairs), RUNS_PER_FILE],
    )) as { rows: (RunUse & { file_id: string })[] };
    return groupByFile(rows, ({ run_id, name, status, flow_version }) => ({ run_id, name, status, flow_version }));
  }
}

function groupByFile<R extends { file_id: string }, T>(rows: readonly R[], use: (row: R) => T): ByFile<T> {
  const byFile: ByFile<T> = new Map();
  for (const row of rows) byFile.set(row.file_id, [...(byFile.get(row.file_id) ?? []), use(row)]);
  return byFile;
}
