import type {
  ConnectionReport,
  CreateFileRepositoryBody,
  FileRepository,
  UpdateFileRepositoryBody,
} from '../../../shared/api/file-repositories.js';
import { problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import { isUuid } from '../../../shared/ids.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import type { OrgAccessRepo } from '../../authz/org-access-repo.js';
import type { RepositoryStores } from './repository-stores.js';
import type { FilesTx, RepositoriesRepo, RepositoryFilter, RepositoryRow, RepositoryWithTotals } from './repositories-repo.js';

export interface OrgRef {
  readonly id: string;
  readonly slug: string;
}

const MANAGE = 'file_repository:manage';
/** The repository `ensure-default` makes for an organization with none. */
const DEFAULT_NAME = 'default';

export function repositoryNotFound() {
  return problems.resourceNotFound('File repository');
}

export function sharedReadOnly() {
  return problem('shared_read_only', 'This file repository belongs to the shared organization: it may be read here, changed only there.');
}

export function repositoryView(
  row: RepositoryWithTotals | RepositoryRow,
  totals?: { file_count: number; size_bytes: number },
): FileRepository {
  const withTotals = row as Partial<RepositoryWithTotals>;
  return {
    id: row.id,
    org_id: row.org_id,
    name: row.name,
    description: row.description,
    kind: row.kind,
    config: row.config_json,
    is_default: row.is_default,
    file_count: totals?.file_count ?? Number(withTotals.file_count ?? 0),
    size_bytes: totals?.size_bytes ?? Number(withTotals.size_bytes ?? 0),
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
    created_by: row.created_by,
    updated_by: row.updated_by,
  };
}

/**
 * File repositories of the active organization (the shared organization's read here, changed only there):
 * one default per organization, S3 credentials kept as secret references that must resolve in the
 * organization when they are saved. Every change is audited in its transaction.
 */
export class RepositoriesService {
  constructor(
    private readonly repo: RepositoriesRepo,
    private readonly access: OrgAccessRepo,
    private readonly stores: RepositoryStores,
    private readonly audit: AuditWriter,
  ) {}

  async list(org: OrgRef, filter: RepositoryFilter) {
    const { rows, total } = await this.repo.list(await this.access.readableOrgIds(org.id), filter);
    return { items: rows.map((row) => repositoryView(row)), total, limit: filter.limit, offset: filter.offset };
  }

  async get(org: OrgRef, id: string): Promise<FileRepository> {
    return repositoryView(await this.readable(org, id));
  }

  /** A repository the organization may read (its own or the shared one's); 404 otherwise. */
  async readable(org: OrgRef, id: string): Promise<RepositoryWithTotals> {
    if (!isUuid(id)) throw repositoryNotFound();
    const row = await this.repo.find(await this.access.readableOrgIds(org.id), id);
    if (!row) throw repositoryNotFound();
    return row;
  }

  /** A repository the organization may change: its own; the shared one's answers 403, anyone else's 404. */
  async writable(org: OrgRef, id: string): Promise<RepositoryWithTotals> {
    const row = await this.readable(org, id);
    if (row.org_id !== org.id) throw sharedReadOnly();
    return row;
  }

  async create(org: OrgRef, input: CreateFileRepositoryBody, context: AuditContext | undefined): Promise<FileRepository> {
    const config = input.kind === 's3' ? input.config : {};
    if (input.kind === 's3') await this.stores.checkReferences(org.id, input.config);
    const by = context?.subject ?? null;
    return this.repo.transaction(async (trx) => {
      await this.repo.lockOrg(trx, org.id);
      const first = !(await this.repo.defaultOf(org.id, trx));
      const makeDefault = input.is_default === true || first;
      if (makeDefault) await this.repo.clearDefault(trx, org.id);
      const row = await this.#insert(trx, {
        org_id: org.id,
        name: input.name,
        description: input.description ?? null,
        kind: input.kind,
        config_json: JSON.stringify(config),
        is_default: makeDefault,
        created_by: by,
        updated_by: by,
      });
      await this.#record(trx, context, 'entity.created', row, { repository: auditView(row) });
      return repositoryView(row, { file_count: 0, size_bytes: 0 });
    });
  }

  async update(org: OrgRef, id: string, input: UpdateFileRepositoryBody, context: AuditContext | undefined): Promise<FileRepository> {
    const current = await this.writable(org, id);
    if (input.config !== undefined && current.kind !== 's3') {
      throw problems.validation([{ path: 'config', message: 'a local repository takes no config' }]);
    }
    if (input.config) await this.stores.checkReferences(org.id, input.config);
    await this.repo.transaction(async (trx) => {
      const row = await this.repo.lock(trx, org.id, id);
      if (!row) throw repositoryNotFound();
      const changes: Record<string, unknown> = { updated_by: context?.subject ?? null };
      if (input.name !== undefined) changes.name = input.name;
      if (input.description !== undefined) changes.description = input.description;
      if (input.config !== undefined) changes.config_json = JSON.stringify(input.config);
      const updated = await this.#guardName(() => this.repo.update(trx, id, changes));
      await this.#record(trx, context, 'entity.updated', updated, { before: auditView(row), after: auditView(updated) });
    });
    this.stores.forget(id);
    return this.get(org, id);
  }

  /** Only an empty repository goes (its files and run artifacts would lose their bytes); it takes its folders with it. */
  async remove(org: OrgRef, id: string, context: AuditContext | undefined): Promise<void> {
    await this.writable(org, id);
    await this.repo.transaction(async (trx) => {
      const row = await this.repo.lock(trx, org.id, id);
      if (!row) throw repositoryNotFound();
      const count = await this.repo.fileCount(trx, id);
      // Run artifacts kept in it would lose their bytes just as files would.
      const artifacts = await this.repo.artifactCount(trx, id);
      if (count > 0 || artifacts > 0) {
        throw problem('file_repository_not_empty', `The repository holds ${count} files and ${artifacts} run artifacts.`, {
          file_count: count,
          artifact_count: artifacts,
        });
      }
      await this.repo.remove(trx, id);
      await this.#record(trx, context, 'entity.deleted', row, { repository: auditView(row) });
    });
    this.stores.forget(id);
  }

  async setDefault(org: OrgRef, id: string, context: AuditContext | undefined): Promise<FileRepository> {
    await this.writable(org, id);
    await this.repo.transaction(async (trx) => {
      await this.repo.lockOrg(trx, org.id);
      const row = await this.repo.lock(trx, org.id, id);
      if (!row) throw repositoryNotFound();
      if (row.is_default) return;
      await this.repo.clearDefault(trx, org.id);
      const updated = await this.repo.update(trx, id, { is_default: true, updated_by: context?.subject ?? null });
      await this.#record(trx, context, 'file_repository.default_set', updated, { name: updated.name });
    });
    return this.get(org, id);
  }

  /** The organization's default repository, made (`local`, named `default`) when it has none; `created` says which. */
  async ensureDefault(org: OrgRef, context: AuditContext | undefined): Promise<{ created: boolean; repository: FileRepository }> {
    const made = await this.ensureDefaultRow(org.id, context);
    return { created: made.created, repository: await this.get(org, made.row.id) };
  }

  /** The organization's default repository's row, made as `ensureDefault` makes it (also for run artifacts, with no request behind it). */
  async ensureDefaultRow(orgId: string, context: AuditContext | undefined): Promise<{ created: boolean; row: RepositoryRow }> {
    return this.repo.transaction(async (trx) => {
      await this.repo.lockOrg(trx, orgId);
      const existing = await this.repo.defaultOf(orgId, trx);
      if (existing) return { created: false, row: existing };
      const by = context?.subject ?? null;
      const row = await this.#insert(trx, {
        org_id: orgId,
        name: await this.#freeName(trx, orgId),
        description: 'Made by ensure-default',
        kind: 'local',
        config_json: '{}',
        is_default: true,
        created_by: by,
        updated_by: by,
      });
      await this.#record(trx, context, 'entity.created', row, { repository: auditView(row), ensure_default: true });
      return { created: true, row };
    });
  }

  async testConnection(org: OrgRef, id: string): Promise<ConnectionReport> {
    const row = await this.writable(org, id);
    const checks = await this.stores.check(row);
    return { ok: checks.every((c) => c.ok), checks: [...checks] };
  }

  async #freeName(trx: FilesTx, orgId: string): Promise<string> {
    for (let n = 1; ; n += 1) {
      const name = n === 1 ? DEFAULT_NAME : `${DEFAULT_NAME}-${n}`;
      const taken = await trx('file_repositories').where({ org_id: orgId, name }).first('id');
      if (!taken) return name;
    }
  }

  async #insert(trx: FilesTx, row: Record<string, unknown>): Promise<RepositoryRow> {
    return this.#guardName(() => this.repo.insert(trx, row));
  }

  /** The unique index has the last word on names. */
  async #guardName<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if ((error as { code?: string }).code === '23505')
        throw problems.conflict('The organization already has a file repository of this name.');
      throw error;
    }
  }

  async #record(trx: FilesTx, context: AuditContext | undefined, eventType: string, row: RepositoryRow, details: Record<string, unknown>) {
    await this.audit.record(
      context,
      { eventType, action: MANAGE, resourceType: 'file_repository', resourceId: row.id, orgId: row.org_id, details },
      trx,
    );
  }
}

/** What the audit log keeps of a repository: its settings and references, never a credential (there is none to keep). */
function auditView(row: RepositoryRow): Record<string, unknown> {
  return { name: row.name, kind: row.kind, config: row.config_json, is_default: row.is_default, description: row.description };
}
