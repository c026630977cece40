import { problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import { namedFolder } from './file-paths.js';
import type { FilesRepo } from './files-repo.js';
import type { FilesService } from './files-service.js';
import type { OrgRef, RepositoriesService } from './repositories-service.js';
import type { FilesTx, RepositoryRow } from './repositories-repo.js';
import type { RepositoryStores } from './repository-stores.js';

/** A path and every folder above it: `a/b/c` -> `a`, `a/b`, `a/b/c`. */
function withAncestors(path: string): string[] {
  const parts = path.split('/');
  return parts.map((_, i) => parts.slice(0, i + 1).join('/'));
}

/**
 * Folders of a repository: those made on purpose (kept while empty) and those that hold files, with every
 * folder above them. Renaming moves rows only; removing an unempty folder needs `force` and removes its
 * files (none may be in use).
 */
export class FoldersService {
  constructor(
    private readonly repo: FilesRepo,
    private readonly repositories: RepositoriesService,
    private readonly files: FilesService,
    private readonly stores: RepositoryStores,
    private readonly audit: AuditWriter,
  ) {}

  async list(org: OrgRef, repositoryId: string): Promise<{ items: { path: string; file_count: number }[] }> {
    const repository = await this.repositories.readable(org, repositoryId);
    const counts = new Map<string, number>();
    for (const path of await this.repo.explicitFolders(repository.id))
      for (const p of withAncestors(path)) counts.set(p, counts.get(p) ?? 0);
    for (const { folder, n } of await this.repo.folderCounts(repository.id)) {
      if (folder === '') continue;
      for (const p of withAncestors(folder)) counts.set(p, counts.get(p) ?? 0);
      counts.set(folder, (counts.get(folder) ?? 0) + Number(n));
    }
    const items = [...counts]
      .map(([path, file_count]) => ({ path, file_count }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return { items };
  }

  async create(org: OrgRef, repositoryId: string, rawPath: string, context: AuditContext | undefined): Promise<{ path: string }> {
    const repository = await this.repositories.writable(org, repositoryId);
    const path = namedFolder(rawPath);
    await this.repo.transaction(async (trx) => {
      if (await this.repo.folderTaken(trx, repository.id, path))
        throw problem('folder_exists', `The repository already has the folder ${path}.`, { path });
      await this.repo.addFolders(trx, repository.id, [path], context?.subject ?? null);
      await this.#record(trx, context, 'file_folder.created', repository, { path });
    });
    return { path };
  }

  async rename(org: OrgRef, repositoryId: string, rawFrom: string, rawTo: string, context: AuditContext | undefined) {
    const repository = await this.repositories.writable(org, repositoryId);
    const from = namedFolder(rawFrom, 'from');
    const to = namedFolder(rawTo, 'to');
    if (to === from || to.startsWith(`${from}/`)) throw problems.validation([{ path: 'to', message: 'a folder cannot move into itself' }]);
    const moved = await this.repo.transaction(async (trx) => {
      if (!(await this.repo.folderTaken(trx, repository.id, from))) throw problems.resourceNotFound('Folder');
      if (await this.repo.folderTaken(trx, repository.id, to))
        throw problem('folder_exists', `The repository already has the folder ${to}.`, { path: to });
      const count = await this.repo.renameFolder(trx, repository.id, from, to, context?.subject ?? null);
      // The new path's parents exist as folders from now on, as they would after a move of each file.
      await this.repo.addFolders(trx, repository.id, [to], context?.subject ?? null);
      await this.#record(trx, context, 'file_folder.renamed', repository, { from, to, files_moved: count });
      return count;
    });
    return { from, to, files_moved: moved };
  }

  /** Removes a folder; one holding files or folders needs `force`, which deletes those files (refused while any is in use). */
  async remove(org: OrgRef, repositoryId: string, rawPath: string, force: boolean, context: AuditContext | undefined): Promise<void> {
    const repository = await this.repositories.writable(org, repositoryId);
    const path = namedFolder(rawPath);
    // Usage is read before the transaction opens (the embedded database has one connection for both).
    for (const file of await this.repo.underFolder(this.repo.direct, repository.id, path)) {
      const usage = await this.files.usage(org, file.id);
      if (usage.in_use && force) {
        throw problem('file_in_use', `${file.name} is in use.`, {
          file_id: file.id,
          flows: usage.flows.map((f) => f.flow_id),
          runs: usage.runs.map((r) => r.run_id),
          inventory_providers: usage.inventory_providers.map((p) => p.provider_id),
        });
      }
    }
    const removed = await this.repo.transaction(async (trx) => {
      if (!(await this.repo.folderTaken(trx, repository.id, path))) throw problems.resourceNotFound('Folder');
      const files = await this.repo.underFolder(trx, repository.id, path);
      const subfolders = (await this.repo.explicitFolders(repository.id, trx)).filter((p) => p.startsWith(`${path}/`));
      if ((files.length > 0 || subfolders.length > 0) && !force) {
        throw problem('folder_not_empty', `The folder ${path} is not empty.`, { path, file_count: files.length });
      }
      await this.repo.remove(
        trx,
        files.map((f) => f.id),
      );
      await this.repo.removeFolders(trx, repository.id, path);
      await this.#record(trx, context, 'file_folder.deleted', repository, { path, files_deleted: files.map((f) => f.id) });
      return files;
    });
    const store = await this.stores.of(repository);
    for (const file of removed) await store.remove(file.storage_key).catch(() => undefined);
  }

  async #record(
    trx: FilesTx,
    context: AuditContext | undefined,
    eventType: string,
    repository: RepositoryRow,
    details: Record<string, unknown>,
  ) {
    await this.audit.record(
      context,
      { eventType, action: 'file:manage', resourceType: 'file_repository', resourceId: repository.id, orgId: repository.org_id, details },
      trx,
    );
  }
}
