import type { Knex } from 'knex';
import type { FlowDefinition } from '../../../shared/flows/definition.js';
import { pageWithTotal } from '../../db/page.js';

export interface FlowGitLinkRow {
  readonly flow_id: string;
  readonly repo_id: string;
  readonly branch: string;
  readonly path: string;
  readonly mode: 'draft' | 'version';
  readonly last_synced_sha: string | null;
  readonly last_synced_at: Date | null;
  readonly synced_definition_json: FlowDefinition | null;
  readonly created_at: Date;
  readonly updated_at: Date;
}

export interface SyncHistoryRow {
  readonly id: string;
  readonly org_id: string;
  readonly repo_id: string | null;
  readonly flow_id: string | null;
  readonly direction: 'pull' | 'push';
  readonly branch: string;
  readonly path: string;
  readonly commit_sha: string | null;
  readonly commit_author: string | null;
  readonly committed_at: Date | null;
  readonly flow_version: number | null;
  readonly forced: boolean;
  readonly outcome: string;
  readonly code: string | null;
  readonly requested_by: string | null;
  readonly created_at: Date;
}

export type NewSyncEntry = Omit<SyncHistoryRow, 'id' | 'created_at'>;

const LINK = [
  'flow_id',
  'repo_id',
  'branch',
  'path',
  'mode',
  'last_synced_sha',
  'last_synced_at',
  'synced_definition_json',
  'created_at',
  'updated_at',
] as const;
const HISTORY = [
  'id',
  'org_id',
  'repo_id',
  'flow_id',
  'direction',
  'branch',
  'path',
  'commit_sha',
  'commit_author',
  'committed_at',
  'flow_version',
  'forced',
  'outcome',
  'code',
  'requested_by',
  'created_at',
] as const;

function link(row: Record<string, unknown> | undefined): FlowGitLinkRow | undefined {
  if (!row) return undefined;
  const synced = row.synced_definition_json;
  return { ...row, synced_definition_json: typeof synced === 'string' ? JSON.parse(synced) : synced } as FlowGitLinkRow;
}

/** `flow_git_links` and `git_sync_history`. Writes take the caller's transaction where one is open. */
export class GitSyncRepo {
  constructor(private readonly knex: Knex) {}

  async link(flowId: string, trx?: Knex.Transaction): Promise<FlowGitLinkRow | undefined> {
    return link(await (trx ?? this.knex)('flow_git_links').where({ flow_id: flowId }).first(LINK));
  }

  async linksOf(repoId: string): Promise<FlowGitLinkRow[]> {
    const rows = await this.knex('flow_git_links').where({ repo_id: repoId }).orderBy('flow_id').select(LINK);
    return rows.map((row) => link(row)!);
  }

  /** Creates or replaces the flow's link; a new place forgets what was synced from the old one. */
  async upsertLink(
    trx: Knex.Transaction,
    row: { flow_id: string; repo_id: string; branch: string; path: string; mode: string; by: string | null },
    samePlace: boolean,
  ): Promise<FlowGitLinkRow> {
    const values = { repo_id: row.repo_id, branch: row.branch, path: row.path, mode: row.mode, updated_by: row.by };
    const reset = samePlace ? {} : { last_synced_sha: null, last_synced_at: null, synced_definition_json: null };
    const [saved] = await trx('flow_git_links')
      .insert({ flow_id: row.flow_id, ...values, created_by: row.by })
      .onConflict('flow_id')
      .merge({ ...values, ...reset, updated_at: trx.fn.now() })
      .returning(LINK);
    return link(saved)!;
  }

  async detach(trx: Knex.Transaction, flowId: string): Promise<void> {
    await trx('flow_git_links').where({ flow_id: flowId }).delete();
  }

  async synced(trx: Knex.Transaction, flowId: string, sha: string, definition: FlowDefinition): Promise<void> {
    await trx('flow_git_links')
      .where({ flow_id: flowId })
      .update({ last_synced_sha: sha, last_synced_at: trx.fn.now(), synced_definition_json: JSON.stringify(definition) });
  }

  async record(entry: NewSyncEntry, trx?: Knex.Transaction): Promise<SyncHistoryRow> {
    const [row] = await (trx ?? this.knex)('git_sync_history').insert(entry).returning(HISTORY);
    return row as SyncHistoryRow;
  }

  async history(where: { repo_id: string } | { flow_id: string }, page: { limit: number; offset: number }) {
    return pageWithTotal<SyncHistoryRow>(
      this.knex,
      this.knex('git_sync_history').where(where),
      HISTORY,
      [
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ],
      page,
    );
  }
}
