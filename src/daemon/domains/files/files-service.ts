import type { Readable } from 'node:stream';
import type { FileUsage, FileView } from '../../../shared/api/files.js';
import { problem } from '../../../shared/api/problem.js';
import { isUuid } from '../../../shared/ids.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import type { OrgAccessRepo } from '../../authz/org-access-repo.js';
import { BlobMissing, isStoreFailure } from '../../storage/blob-store.js';
import type { ByteSource } from '../../storage/stream-meter.js';
import { fileName, folderPath, joinPath, placeOf } from './file-paths.js';
import type { FileUsageRepo } from './file-usage-repo.js';
import { fileAuditView, fileNotFound, fileView, sharedFileReadOnly } from './file-view.js';
import type { FileWriter } from './file-writer.js';
import { refusedByStore } from './store-refusal.js';
import type { FileFilter, FileRow, FilesRepo } from './files-repo.js';
import type { RepositoriesRepo } from './repositories-repo.js';
import type { OrgRef, RepositoriesService } from './repositories-service.js';
import type { RepositoryStores } from './repository-stores.js';

export interface UploadMeta {
  readonly name: string;
  readonly folder?: string | undefined;
  readonly sha256?: string | undefined;
  readonly overwrite: boolean;
  readonly declaredType?: string | undefined;
  readonly declaredBytes?: number | undefined;
  readonly sourceUrl?: string | undefined;
}

/**
 * Files of the active organization (the shared organization's read here, changed only there): streamed
 * upload and download, listing, moves that change rows and never bytes, usage by flows and runs, and
 * deletion, refused while something uses the file unless forced. Every change is audited.
 */
export class FilesService {
  constructor(
    private readonly repo: FilesRepo,
    private readonly repositoriesRepo: RepositoriesRepo,
    private readonly repositories: RepositoriesService,
    private readonly stores: RepositoryStores,
    private readonly writer: FileWriter,
    private readonly usageRepo: FileUsageRepo,
    private readonly access: OrgAccessRepo,
    private readonly audit: AuditWriter,
  ) {}

  async upload(org: OrgRef, repositoryId: string, meta: UploadMeta, source: ByteSource, context: AuditContext | undefined) {
    const repository = await this.repositories.writable(org, repositoryId);
    const place = placeOf(meta.folder, meta.name);
    const store = await this.stores.of(repository).catch(refusedByStore);
    const { created, row } = await this.writer.write(repository, store, { ...meta, ...place }, source, context);
    return { created, file: fileView(row) };
  }

  async list(org: OrgRef, filter: Omit<FileFilter, 'folder'> & { folder?: string | undefined }) {
    const folder = filter.folder === undefined ? undefined : folderPath(filter.folder);
    const { rows, total } = await this.repo.list(await this.access.readableOrgIds(org.id), { ...filter, folder });
    return { items: rows.map(fileView), total, limit: filter.limit, offset: filter.offset };
  }

  async get(org: OrgRef, id: string): Promise<FileView> {
    return fileView(await this.readable(org, id));
  }

  async readable(org: OrgRef, id: string): Promise<FileRow> {
    if (!isUuid(id)) throw fileNotFound();
    const row = await this.repo.find(await this.access.readableOrgIds(org.id), id);
    if (!row) throw fileNotFound();
    return row;
  }

  /** A file by id alone (a presigned URL or a worker: the signature or the internal token stands for the organization). */
  async byId(id: string): Promise<FileRow> {
    const row = isUuid(id) ? await this.repo.byId(id) : undefined;
    if (!row) throw fileNotFound();
    return row;
  }

  /** The file's bytes, opened before the answer starts (503 `file_unavailable` when the store cannot give them). */
  async open(row: FileRow): Promise<Readable> {
    const repository = await this.repositoriesRepo.byId(row.repository_id);
    if (!repository) throw fileNotFound();
    try {
      return await (await this.stores.of(repository)).open(row.storage_key);
    } catch (error) {
      if (error instanceof BlobMissing || isStoreFailure(error)) {
        throw problem('file_unavailable', "The file's bytes cannot be read from its repository now.", { file_id: row.id });
      }
      throw error;
    }
  }

  async usage(org: OrgRef, id: string): Promise<FileUsage> {
    return this.usageOf(org, await this.readable(org, id));
  }

  /** Who uses a file the organization may read: a shared file's users elsewhere are no business of this organization. */
  async usageOf(org: OrgRef, row: FileRow): Promise<FileUsage> {
    return (await this.usagesOf(org, [row]))[0]!;
  }

  /** `usageOf` of each row, in their order, in a few statements whatever their count. */
  async usagesOf(org: OrgRef, rows: readonly FileRow[]): Promise<FileUsage[]> {
    return this.#usagesOf(rows, (row) => (row.org_id === org.id ? undefined : [org.id]));
  }

  /**
   * A file of the shared organization may be used by any organization's flows (`within` narrows that);
   * any other, by its own. Files are asked about together, one set of statements per scope.
   */
  async #usagesOf(rows: readonly FileRow[], within: (row: FileRow) => string[] | undefined = () => undefined): Promise<FileUsage[]> {
    const sharedId = await this.access.sharedOrgId();
    const scopes = new Map<string, { orgIds: string[] | undefined; fileIds: string[] }>();
    for (const row of rows) {
      const orgIds = within(row) ?? (row.org_id === sharedId ? undefined : [row.org_id]);
      const key = orgIds?.join() ?? '*';
      const scope = scopes.get(key) ?? { orgIds, fileIds: [] };
      scope.fileIds.push(row.id);
      scopes.set(key, scope);
    }
    const usages = new Map<string, FileUsage>();
    for (const { orgIds, fileIds } of scopes.values()) {
      const flows = await this.usageRepo.flows(orgIds, fileIds);
      const runs = await this.usageRepo.runs(flows);
      const providers = await this.usageRepo.providers(orgIds, fileIds);
      for (const fileId of fileIds) {
        const use = { flows: flows.get(fileId) ?? [], runs: runs.get(fileId) ?? [], inventory_providers: providers.get(fileId) ?? [] };
        const inUse = use.flows.length > 0 || use.runs.length > 0 || use.inventory_providers.length > 0;
        usages.set(fileId, { file_id: fileId, in_use: inUse, ...use });
      }
    }
    return rows.map((row) => usages.get(row.id)!);
  }

  /** Deletes the file for good (row and bytes); 409 `file_in_use` while flows or unfinished runs use it, unless `force`. */
  async remove(org: OrgRef, id: string, force: boolean, context: AuditContext | undefined): Promise<void> {
    await this.removeMany(org, [id], force, context);
  }

  /**
   * Deletes files for good, all or none: one that is not the organization's answers 404 (the shared
   * organization's 403) and one in use 409 `file_in_use` naming every used one (unless `force`), before
   * anything is deleted; then the rows go in one transaction, each audited, and their bytes after it.
   * `action` is the audit entry's (a binary artifact's purge deletes through here too).
   */
  async removeMany(
    org: OrgRef,
    ids: readonly string[],
    force: boolean,
    context: AuditContext | undefined,
    action = 'file:manage',
  ): Promise<{ row: FileRow; forced: boolean }[]> {
    const rows: FileRow[] = [];
    for (const id of new Set(ids)) rows.push(await this.#writable(org, id));
    const used = (await this.#usagesOf(rows)).filter((usage) => usage.in_use);
    if (used.length > 0 && !force) throw fileInUse(used, ids.length > 1);
    const forced = new Set(used.map((u) => u.file_id));
    const removed = await this.repo.transaction(async (trx) => {
      const locked: FileRow[] = [];
      for (const row of rows) {
        const current = await this.repo.lock(trx, org.id, row.id);
        if (!current) throw fileNotFound();
        locked.push(current);
      }
      await this.repo.remove(
        trx,
        locked.map((r) => r.id),
      );
      for (const row of locked) {
        await this.audit.record(
          context,
          {
            eventType: 'entity.purged',
            action,
            resourceType: 'file',
            resourceId: row.id,
            orgId: row.org_id,
            details: { file: fileAuditView(row), forced: forced.has(row.id) },
          },
          trx,
        );
      }
      return locked.map((row) => ({ row, forced: forced.has(row.id) }));
    });
    for (const { row } of removed) await this.#forgetBytes(row);
    return removed;
  }

  /** Moves and/or renames a file within its repository: its row changes, its bytes stay where they are. */
  async move(org: OrgRef, id: string, to: { folder?: string | undefined; name?: string | undefined }, context: AuditContext | undefined) {
    await this.#writable(org, id);
    const [givenFolder, givenName] = [
      to.folder === undefined ? undefined : folderPath(to.folder),
      to.name === undefined ? undefined : fileName(to.name),
    ];
    const row = await this.repo.transaction(async (trx) => {
      const locked = await this.repo.lock(trx, org.id, id);
      if (!locked) throw fileNotFound();
      // What the request leaves out is kept as the row stands now: a folder renamed since the read stays renamed.
      const [folder, name] = [givenFolder ?? locked.folder, givenName ?? locked.name];
      if (locked.folder === folder && locked.name === name) return locked;
      const taken = await this.repo.atPlace(trx, locked.repository_id, folder, name);
      if (taken) throw problem('file_exists', `The folder already holds ${name}.`, { path: joinPath(folder, name), file_id: taken.id });
      const moved = await this.repo.update(trx, id, { folder, name, updated_by: context?.subject ?? null });
      await this.audit.record(
        context,
        {
          eventType: 'file.moved',
          action: 'file:manage',
          resourceType: 'file',
          resourceId: id,
          orgId: moved.org_id,
          details: { from: joinPath(locked.folder, locked.name), to: joinPath(folder, name) },
        },
        trx,
      );
      return moved;
    });
    return fileView(row);
  }

  async #writable(org: OrgRef, id: string): Promise<FileRow> {
    const row = await this.readable(org, id);
    if (row.org_id !== org.id) throw sharedFileReadOnly();
    return row;
  }

  /** After the row is gone: its bytes (a failure leaves an orphan object, never a row without bytes). */
  async #forgetBytes(row: FileRow): Promise<void> {
    const repository = await this.repositoriesRepo.byId(row.repository_id);
    if (!repository) return;
    await (await this.stores.of(repository)).remove(row.storage_key).catch(() => undefined);
  }
}

/** 409 `file_in_use`: what uses the file(s), all together, and for several files each one's users under `files`. */
function fileInUse(used: readonly FileUsage[], several: boolean) {
  return problem('file_in_use', 'Flows, unfinished runs or inventory providers use this file.', {
    flows: [...new Set(used.flatMap((u) => u.flows.map((f) => f.flow_id)))],
    runs: [...new Set(used.flatMap((u) => u.runs.map((r) => r.run_id)))],
    inventory_providers: [...new Set(used.flatMap((u) => u.inventory_providers.map((p) => p.provider_id)))],
    ...(several
      ? {
          files: used.map((u) => ({
            file_id: u.file_id,
            flows: u.flows.map((f) => f.flow_id),
            runs: u.runs.map((r) => r.run_id),
            inventory_providers: u.inventory_providers.map((p) => p.provider_id),
          })),
        }
      : {}),
  });
}
