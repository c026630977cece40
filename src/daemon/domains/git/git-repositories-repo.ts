import type { Knex } from 'knex';
import { pageWithTotal } from '../../db/page.js';
import { TransactionalRepo } from '../../db/transactional-repo.js';

export interface GitRepositoryRow {
  readonly id: string;
  readonly org_id: string;
  readonly name: string;
  readonly url: string;
  readonly default_branch: string;
  readonly auth_type: 'none' | 'token' | 'ssh_key';
  readonly auth_username: string | null;
  readonly secret_ref: string | null;
  readonly known_hosts: string | null;
  readonly last_fetched_at: Date | null;
  readonly created_at: Date;
  readonly updated_at: Date;
  readonly created_by: string | null;
  readonly updated_by: string | null;
  /** Flows linked to it (read with the row). */
  readonly linked_flows: number;
}

export type GitRepositoryFields = Pick<
  GitRepositoryRow,
  'name' | 'url' | 'default_branch' | 'auth_type' | 'auth_username' | 'secret_ref' | 'known_hosts'
>;

const COLUMNS = [
  'id',
  'org_id',
  'name',
  'url',
  'default_branch',
  'auth_type',
  'auth_username',
  'secret_ref',
  'known_hosts',
  'last_fetched_at',
  'created_at',
  'updated_at',
  'created_by',
  'updated_by',
] as const;

function withLinks(knex: Knex | Knex.Transaction): Knex.Raw {
  return knex.raw(
    '(SELECT count(*) FROM flow_git_links l JOIN flows f ON f.id = l.flow_id WHERE l.repo_id = git_repositories.id AND f.deleted_at IS NULL)::int AS linked_flows',
  );
}

function likeContains(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}

/** The `git_repositories` table; org-scoped (another organization's id reads as absent). */
export class GitRepositoriesRepo extends TransactionalRepo {
  async find(orgId: string, id: string, trx?: Knex.Transaction): Promise<GitRepositoryRow | undefined> {
    const db = trx ?? this.knex;
    return db('git_repositories')
      .where({ id, org_id: orgId })
      .first([...COLUMNS, withLinks(db)]);
  }

  async list(orgId: string, filter: { q?: string | undefined; limit: number; offset: number }) {
    const query = this.knex('git_repositories').where({ org_id: orgId });
    if (filter.q) query.andWhereRaw(`name ILIKE ? ESCAPE '\\'`, [likeContains(filter.q)]);
    return pageWithTotal<GitRepositoryRow>(
      this.knex,
      query,
      [...COLUMNS, withLinks(this.knex) as unknown as string],
      [
        { column: 'name', order: 'asc' },
        { column: 'id', order: 'asc' },
      ],
      filter,
    );
  }

  async insert(trx: Knex.Transaction, row: GitRepositoryFields & { org_id: string; created_by: string | null }): Promise<GitRepositoryRow> {
    const [inserted] = await trx('git_repositories')
      .insert({ ...row, updated_by: row.created_by })
      .returning([...COLUMNS]);
    return { ...inserted, linked_flows: 0 } as GitRepositoryRow;
  }

  async update(trx: Knex.Transaction, id: string, changes: Partial<GitRepositoryFields> & { updated_by: string | null }): Promise<void> {
    await trx('git_repositories')
      .where({ id })
      .update({ ...changes, updated_at: trx.fn.now() });
  }

  async lock(trx: Knex.Transaction, orgId: string, id: string): Promise<GitRepositoryRow | undefined> {
    const row = await trx('git_repositories').where({ id, org_id: orgId }).forUpdate().first(COLUMNS);
    return row ? this.find(orgId, id, trx) : undefined;
  }

  /** Deletes the repository; links of soft-deleted flows go with it (a live flow's link refuses the delete first). */
  async delete(trx: Knex.Transaction, id: string): Promise<void> {
    await trx('flow_git_links').where({ repo_id: id }).whereIn('flow_id', trx('flows').whereNotNull('deleted_at').select('id')).delete();
    await trx('git_repositories').where({ id }).delete();
  }

  async fetched(id: string): Promise<void> {
    await this.knex('git_repositories').where({ id }).update({ last_fetched_at: this.knex.fn.now() });
  }
}
