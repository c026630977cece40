import type { Knex } from 'knex';
import { pageWithTotal } from '../../db/page.js';
import { TransactionalRepo } from '../../db/transactional-repo.js';
import type { FilesTx } from './repositories-repo.js';

type Db = Knex | FilesTx;

export interface FileRow {
  readonly id: string;
  readonly org_id: string;
  readonly repository_id: string;
  readonly folder: string;
  readonly name: string;
  readonly content_type: string;
  readonly size_bytes: string | number;
  readonly sha256: string;
  readonly storage_key: string;
  readonly revision: number;
  readonly source_url: string | null;
  readonly created_at: Date;
  readonly updated_at: Date;
  readonly created_by: string | null;
  readonly updated_by: string | null;
}

export interface FileFilter {
  readonly repositoryId?: string | undefined;
  readonly folder?: string | undefined;
  readonly recursive: boolean;
  readonly q?: string | undefined;
  readonly contentType?: string | undefined;
  readonly limit: number;
  readonly offset: number;
}

/** A file row's columns, for other repositories reading files (binary artifacts). */
export const FILE_COLUMNS = [
  'id',
  'org_id',
  'repository_id',
  'folder',
  'name',
  'content_type',
  'size_bytes',
  'sha256',
  'storage_key',
  'revision',
  'source_url',
  'created_at',
  'updated_at',
  'created_by',
  'updated_by',
] as const;
const COLUMNS = FILE_COLUMNS;

/** `LIKE` text that matches itself only. */
export function likeEscaped(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Rows of `folder` exactly, or with `recursive` of it and its subfolders too (the root: every row); no `folder`, no condition. */
export function whereInFolder(query: Knex.QueryBuilder, column: string, folder: string | undefined, recursive: boolean): void {
  if (folder === undefined || (recursive && folder === '')) return;
  if (!recursive) query.where(column, folder);
  else query.where((q) => q.where(column, folder).orWhereRaw(`${column} LIKE ? ESCAPE '\\'`, [`${likeEscaped(folder)}/%`]));
}

/** `files` and `file_folders`. */
export class FilesRepo extends TransactionalRepo {
  get direct(): Knex {
    return this.knex;
  }

  async find(orgIds: readonly string[], id: string, db: Db = this.knex): Promise<FileRow | undefined> {
    return db('files').whereIn('org_id', orgIds).where({ id }).first(COLUMNS);
  }

  async byId(id: string, db: Db = this.knex): Promise<FileRow | undefined> {
    return db('files').where({ id }).first(COLUMNS);
  }

  async lock(trx: FilesTx, orgId: string, id: string): Promise<FileRow | undefined> {
    return trx('files').where({ org_id: orgId, id }).forUpdate().first(COLUMNS);
  }

  async atPlace(trx: FilesTx, repositoryId: string, folder: string, name: string): Promise<FileRow | undefined> {
    return trx('files').where({ repository_id: repositoryId, folder, name }).forUpdate().first(COLUMNS);
  }

  async list(orgIds: readonly string[], filter: FileFilter): Promise<{ rows: FileRow[]; total: number }> {
    const filtered = this.knex('files').whereIn('org_id', orgIds);
    if (filter.repositoryId) filtered.where('repository_id', filter.repositoryId);
    whereInFolder(filtered, 'folder', filter.folder, filter.recursive);
    if (filter.q) filtered.whereRaw('position(lower(?) in lower(name)) > 0', [filter.q]);
    if (filter.contentType) filtered.where('content_type', filter.contentType);
    return pageWithTotal<FileRow>(
      this.knex,
      filtered,
      COLUMNS,
      [
        { column: 'folder', order: 'asc' },
        { column: 'name', order: 'asc' },
        { column: 'id', order: 'asc' },
      ],
      filter,
    );
  }

  async insert(trx: FilesTx, row: Record<string, unknown>): Promise<FileRow> {
    const [inserted] = await trx('files').insert(row).returning(COLUMNS);
    return inserted as FileRow;
  }

  async update(trx: FilesTx, id: string, changes: Record<string, unknown>): Promise<FileRow> {
    const [updated] = await trx('files')
      .where({ id })
      .update({ ...changes, updated_at: trx.fn.now() })
      .returning(COLUMNS);
    return updated as FileRow;
  }

  async remove(trx: FilesTx, ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await trx('files').whereIn('id', ids).delete();
  }

  /** Files of the folder and everything under it. */
  async underFolder(db: Db, repositoryId: string, folder: string): Promise<FileRow[]> {
    const query = db('files')
      .where('repository_id', repositoryId)
      .where((q) => q.where('folder', folder).orWhereRaw(`folder LIKE ? ESCAPE '\\'`, [`${likeEscaped(folder)}/%`]));
    if (db.isTransaction) query.forUpdate();
    return query.select(COLUMNS);
  }

  /** Each folder holding files, with how many it holds directly. */
  async folderCounts(repositoryId: string): Promise<{ folder: string; n: string | number }[]> {
    return this.knex('files').where('repository_id', repositoryId).groupBy('folder').select('folder', this.knex.raw('count(*) AS n'));
  }

  async explicitFolders(repositoryId: string, db: Db = this.knex): Promise<string[]> {
    const rows: { path: string }[] = await db('file_folders').where('repository_id', repositoryId).select('path');
    return rows.map((r) => r.path);
  }

  async addFolders(trx: FilesTx, repositoryId: string, paths: readonly string[], by: string | null): Promise<void> {
    if (paths.length === 0) return;
    await trx('file_folders')
      .insert(paths.map((path) => ({ repository_id: repositoryId, path, created_by: by })))
      .onConflict(['repository_id', 'path'])
      .ignore();
  }

  /** Removes the folder and its subfolders' rows. */
  async removeFolders(trx: FilesTx, repositoryId: string, folder: string): Promise<void> {
    await trx('file_folders')
      .where('repository_id', repositoryId)
      .where((q) => q.where('path', folder).orWhereRaw(`path LIKE ? ESCAPE '\\'`, [`${likeEscaped(folder)}/%`]))
      .delete();
  }

  /** Moves `from` and everything under it to `to`: rows only, no bytes. Answers how many files moved. */
  async renameFolder(trx: FilesTx, repositoryId: string, from: string, to: string, by: string | null): Promise<number> {
    const under = `${likeEscaped(from)}/%`;
    // SQL's substr counts characters (code points), not JavaScript's UTF-16 units: `📁` is one, not two.
    const rest = [...from].length + 1;
    const moved = await trx('files')
      .where('repository_id', repositoryId)
      .where((q) => q.where('folder', from).orWhereRaw(`folder LIKE ? ESCAPE '\\'`, [under]))
      .update({ folder: trx.raw('? || substr(folder, ?)', [to, rest]), updated_at: trx.fn.now(), updated_by: by });
    await trx('file_folders')
      .where('repository_id', repositoryId)
      .where((q) => q.where('path', from).orWhereRaw(`path LIKE ? ESCAPE '\\'`, [under]))
      .update({ path: trx.raw('? || substr(path, ?)', [to, rest]) });
    return moved;
  }

  async folderTaken(trx: FilesTx, repositoryId: string, path: string): Promise<boolean> {
    const explicit = await trx('file_folders').where({ repository_id: repositoryId, path }).first('path');
    if (explicit) return true;
    const holding = await trx('files')
      .where('repository_id', repositoryId)
      .where((q) => q.where('folder', path).orWhereRaw(`folder LIKE ? ESCAPE '\\'`, [`${likeEscaped(path)}/%`]))
      .first('id');
    return holding !== undefined;
  }
}
