import type { FileFilter } from './files-repo.js';

/** The wire's place filters and page (`filePlaceFilters`, `pageShape`) as the files' list filter reads them. */
export interface PlaceQuery {
  readonly repository_id?: string | undefined;
  readonly folder?: string | undefined;
  readonly recursive?: 'true' | 'false' | undefined;
  readonly q?: string | undefined;
  readonly limit: number;
  readonly offset: number;
}

/** A list query's place filters and page, shared by the files' list and the binary artifacts'. */
export function placeFilterOf(query: PlaceQuery): Omit<FileFilter, 'contentType'> {
  return {
    repositoryId: query.repository_id,
    folder: query.folder,
    recursive: query.recursive === 'true',
    q: query.q?.trim().normalize('NFC') || undefined,
    limit: query.limit,
    offset: query.offset,
  };
}
