import { posix } from 'node:path';
import { pipeline, type Readable } from 'node:stream';
import type { BinaryArtifact, BinaryArtifactList, BulkDeleteAnswer } from '../../../shared/api/binary-artifacts.js';
import type { FileUsage } from '../../../shared/api/files.js';
import { problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import { isUuid } from '../../../shared/ids.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { OrgAccessRepo } from '../../authz/org-access-repo.js';
import { verifying } from '../../storage/verify-stream.js';
import type { ZipMember } from '../../storage/zip-stream.js';
import { folderPath, joinPath } from '../files/file-paths.js';
import { fileView } from '../files/file-view.js';
import type { FilesService } from '../files/files-service.js';
import type { OrgRef } from '../files/repositories-service.js';
import type { BinaryArtifactFilter, BinaryArtifactRow, BinaryArtifactsRepo } from './binary-artifacts-repo.js';

export interface ZipLimits {
  /** Members one zip may carry. */
  readonly maxItems: number;
  /** SERVICE_BINARY_ARTIFACT_ZIP_MAX_BYTES */
  readonly maxBytes: number;
}

/**
 * Binary artifacts: the binary files of the organization's file repositories (and the shared
 * organization's, read-only), listed across repositories with their usage, downloaded together as one
 * zip streamed as it is made, and purged all or none through the files service's deletion.
 */
export class BinaryArtifactsService {
  constructor(
    private readonly repo: BinaryArtifactsRepo,
    private readonly files: FilesService,
    private readonly access: OrgAccessRepo,
    private readonly zipLimits: ZipLimits,
  ) {}

  async list(org: OrgRef, filter: BinaryArtifactFilter): Promise<BinaryArtifactList> {
    const folder = filter.folder === undefined ? undefined : folderPath(filter.folder);
    const { rows, total } = await this.repo.list(await this.access.readableOrgIds(org.id), { ...filter, folder });
    const usages = await this.files.usagesOf(org, rows);
    const items = rows.map((row, at) => this.#view(org, row, usages[at]!));
    return { items, total, limit: filter.limit, offset: filter.offset };
  }

  /** The zip's members in the order asked, each named `<repository>/<folder>/<name>`, made unique; 404 or 413 before any byte. */
  async zipMembers(org: OrgRef, ids: readonly string[]): Promise<ZipMember[]> {
    const rows = await this.#all(org, ids);
    const bytes = rows.reduce((sum, row) => sum + Number(row.size_bytes), 0);
    if (rows.length > this.zipLimits.maxItems || bytes > this.zipLimits.maxBytes) {
      throw problem('bulk_download_too_large', 'These artifacts are more than one zip may carry.', {
        limit_items: this.zipLimits.maxItems,
        limit_bytes: this.zipLimits.maxBytes,
        items: rows.length,
        bytes,
      });
    }
    const names = new Set<string>();
    return rows.map((row) => ({
      name: uniqueName(names, `${zipSegment(row.repository_name)}/${joinPath(row.folder, row.name)}`, row.id),
      size: Number(row.size_bytes),
      mtime: new Date(row.updated_at),
      contentType: row.content_type,
      open: async (): Promise<Readable> =>
        pipeline(await this.files.open(row), verifying(row.sha256, Number(row.size_bytes)), () => undefined),
    }));
  }

  /**
   * Deletes the artifacts for good, all or none: any id that is not a binary artifact the organization
   * may read answers 404, and the files service refuses the shared organization's (403) and used ones
   * (409 `file_in_use`, unless `force`) before it deletes anything; each deletion is audited.
   */
  async remove(org: OrgRef, ids: readonly string[], force: boolean, context: AuditContext | undefined): Promise<BulkDeleteAnswer> {
    const rows = await this.#all(org, ids);
    const removed = await this.files.removeMany(
      org,
      rows.map((r) => r.id),
      force,
      context,
      'binary_artifact:purge',
    );
    return {
      deleted: removed.map(({ row, forced }) => ({
        id: row.id,
        path: joinPath(row.folder, row.name),
        repository_id: row.repository_id,
        forced,
      })),
    };
  }

  /** Every id's row, in the order given, duplicates once; one id unknown, another organization's or text answers 404. */
  async #all(org: OrgRef, ids: readonly string[]): Promise<BinaryArtifactRow[]> {
    const wanted = [...new Set(ids)];
    if (!wanted.every(isUuid)) throw notFound();
    const found = new Map((await this.repo.byIds(await this.access.readableOrgIds(org.id), wanted)).map((r) => [r.id, r]));
    const missing = wanted.filter((id) => !found.has(id));
    if (missing.length > 0) throw notFound();
    return wanted.map((id) => found.get(id)!);
  }

  #view(org: OrgRef, row: BinaryArtifactRow, { file_id: _fileId, ...usage }: FileUsage): BinaryArtifact {
    return { ...fileView(row), repository_name: row.repository_name, shared: row.org_id !== org.id, usage };
  }
}

function notFound() {
  return problems.resourceNotFound('Binary artifact');
}

/** A repository's name (free text) as one safe segment of a zip entry's path: the folder and name are safe already (file-paths.ts). */
function zipSegment(name: string): string {
  // A colon too: `c:x/…` is an absolute path to the zip library (a drive), which refuses the member.
  const safe = name.replace(/[/\\:\u0000-\u001f\u007f]/g, '_');
  return safe === '.' || safe === '..' ? '_' : safe;
}

/** `path`, or when a member already has it, `path` with the artifact's id before its extension (`a~1f2e3d4c.bin`). */
function uniqueName(taken: Set<string>, path: string, id: string): string {
  let name = path;
  if (taken.has(name)) {
    const ext = posix.extname(path);
    name = `${path.slice(0, path.length - ext.length)}~${id.slice(0, 8)}${ext}`;
  }
  taken.add(name);
  return name;
}
