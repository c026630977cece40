import type { FileUsage, FileView } from '../../../shared/api/files.js';
import type { Column } from '../../runtime/table.js';

/** The file routes' wire shapes, inferred from the schemas the daemon answers with (types only: no zod at run time). */
export type { FileUsage, FileView };

export interface FileList {
  readonly items: FileView[];
  readonly total: number;
  readonly limit: number;
  readonly offset: number;
}

export const FILE_COLUMNS: Column<FileView>[] = [
  { header: 'ID', value: (f) => f.id },
  { header: 'PATH', value: (f) => f.path },
  { header: 'SIZE', value: (f) => String(f.size_bytes) },
  { header: 'TYPE', value: (f) => f.content_type },
  { header: 'SHA256', value: (f) => f.sha256.slice(0, 12) },
  { header: 'UPDATED', value: (f) => f.updated_at },
];

/** One file as `field: value` lines. */
export const fileFields = (f: FileView) =>
  [
    ['id', f.id],
    ['path', f.path],
    ['repository_id', f.repository_id],
    ['size_bytes', String(f.size_bytes)],
    ['content_type', f.content_type],
    ['sha256', f.sha256],
    ['revision', String(f.revision)],
    ['source_url', f.source_url],
    ['created_at', f.created_at],
    ['updated_at', f.updated_at],
    ['updated_by', f.updated_by],
  ] as const;
