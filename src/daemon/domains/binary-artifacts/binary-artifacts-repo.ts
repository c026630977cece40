import type { Knex } from 'knex';
import { pageWithTotal } from '../../db/page.js';
import { FILE_COLUMNS, whereInFolder, type FileFilter, type FileRow } from '../files/files-repo.js';

/** A binary file with the name of the repository holding it. */
export interface BinaryArtifactRow extends FileRow {
  readonly repository_name: string;
}

/** The files' filters but the content type's, and a least size. */
export interface BinaryArtifactFilter extends Omit<FileFilter, 'contentType'> {
  readonly minSize?: number | undefined;
}

const COLUMNS = [...FILE_COLUMNS.map((c) => `f.${c}`), 'r.name as repository_name'];

/**
 * Which recorded content types are binary: all but text (`text/*`), JSON, YAML and XML (`+json`, `+xml`
 * included), the types the upload's sniffing records for text (files/content-type.ts). Sniffing records a
 * signature's type whatever was declared, so an OS image uploaded as text/plain is still binary here.
 */
const BINARY = `NOT (
  lower(f.content_type) LIKE 'text/%'
  OR split_part(lower(f.content_type), ';', 1) IN ('application/json', 'application/xml', 'application/yaml', 'application/x-yaml')
  OR split_part(lower(f.content_type), ';', 1) LIKE '%+json'
  OR split_part(lower(f.content_type), ';', 1) LIKE '%+xml'
)`;

/** Binary files (`files` of binary content types) of the given organizations, across their repositories. */
export class BinaryArtifactsRepo {
  constructor(private readonly knex: Knex) {}

  #binary(orgIds: readonly string[]): Knex.QueryBuilder {
    return this.knex('files as f').join('file_repositories as r', 'r.id', 'f.repository_id').whereIn('f.org_id', orgIds).whereRaw(BINARY);
  }

  async list(orgIds: readonly string[], filter: BinaryArtifactFilter): Promise<{ rows: BinaryArtifactRow[]; total: number }> {
    const filtered = this.#binary(orgIds);
    if (filter.repositoryId) filtered.where('f.repository_id', filter.repositoryId);
    whereInFolder(filtered, 'f.folder', filter.folder, filter.recursive);
    if (filter.q) filtered.whereRaw('position(lower(?) in lower(f.name)) > 0', [filter.q]);
    if (filter.minSize !== undefined) filtered.where('f.size_bytes', '>=', filter.minSize);
    return pageWithTotal<BinaryArtifactRow>(
      this.knex,
      filtered,
      COLUMNS,
      [
        { column: 'r.name', order: 'asc' },
        { column: 'f.folder', order: 'asc' },
        { column: 'f.name', order: 'asc' },
        { column: 'f.id', order: 'asc' },
      ],
      filter,
    );
  }

  /** The binary files among `ids` the organizations may read (an id missing here is unknown, another's, or text). */
  async byIds(orgIds: readonly string[], ids: readonly string[]): Promise<BinaryArtifactRow[]> {
    if (ids.length === 0) return [];
    return this.#binary(orgIds).whereIn('f.id', ids).select(COLUMNS);
  }
}
