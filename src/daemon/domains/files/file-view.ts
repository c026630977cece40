import type { FileView } from '../../../shared/api/files.js';
import { problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import { joinPath } from './file-paths.js';
import type { FileRow } from './files-repo.js';

export function fileView(row: FileRow): FileView {
  return {
    id: row.id,
    org_id: row.org_id,
    repository_id: row.repository_id,
    folder: row.folder,
    name: row.name,
    path: joinPath(row.folder, row.name),
    content_type: row.content_type,
    size_bytes: Number(row.size_bytes),
    sha256: row.sha256,
    revision: row.revision,
    source_url: row.source_url,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
    created_by: row.created_by,
    updated_by: row.updated_by,
  };
}

/** What the audit log keeps of a file. */
export function fileAuditView(row: FileRow): Record<string, unknown> {
  return {
    repository_id: row.repository_id,
    path: joinPath(row.folder, row.name),
    size_bytes: Number(row.size_bytes),
    sha256: row.sha256,
    content_type: row.content_type,
    revision: row.revision,
  };
}

export function fileNotFound() {
  return problems.resourceNotFound('File');
}

export function sharedFileReadOnly() {
  return problem('shared_read_only', 'This file belongs to the shared organization: it may be read here, changed only there.');
}
