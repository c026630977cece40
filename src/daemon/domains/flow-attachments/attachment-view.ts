import type { FlowAttachment } from '../../../shared/api/flow-attachments.js';
import { problems } from '../../../shared/api/problems.js';
import { folderAndName } from './attachment-paths.js';
import type { AttachmentRow } from './attachments-repo.js';

export const attachmentNotFound = () => problems.resourceNotFound('Flow attachment');

/** An attachment as answered; `read_only` when the flow is the shared organization's, seen from another. */
export function attachmentView(row: AttachmentRow, activeOrgId: string): FlowAttachment {
  return {
    id: row.id,
    flow_id: row.flow_id,
    org_id: row.org_id,
    path: row.path,
    ...folderAndName(row.path),
    content_type: row.content_type,
    size_bytes: Number(row.size_bytes),
    sha256: row.sha256,
    read_only: row.org_id !== activeOrgId,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
    created_by: row.created_by,
    updated_by: row.updated_by,
  };
}

/** What the audit log keeps of an attachment. */
export function attachmentAudit(row: Pick<AttachmentRow, 'flow_id' | 'path' | 'sha256' | 'size_bytes' | 'content_type'>) {
  return { flow_id: row.flow_id, path: row.path, sha256: row.sha256, size_bytes: Number(row.size_bytes), content_type: row.content_type };
}
