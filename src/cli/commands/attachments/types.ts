import type { FlowAttachment } from '../../../shared/api/flow-attachments.js';
import type { Column } from '../../runtime/table.js';

/** The attachment routes' wire shapes, inferred from the schemas the daemon answers with (types only: no zod at run time). */
export type { FlowAttachment };

export interface AttachmentList {
  readonly items: FlowAttachment[];
  readonly total: number;
  readonly limit: number;
  readonly offset: number;
}

export interface BulkUploadResult {
  readonly items: FlowAttachment[];
  readonly created: number;
  readonly replaced: number;
}

export interface BulkRenameResult {
  readonly items: FlowAttachment[];
  readonly moved: number;
}

export const ATTACHMENT_COLUMNS: Column<FlowAttachment>[] = [
  { header: 'ID', value: (a) => a.id },
  { header: 'PATH', value: (a) => a.path },
  { header: 'SIZE', value: (a) => String(a.size_bytes) },
  { header: 'TYPE', value: (a) => a.content_type },
  { header: 'SHA256', value: (a) => a.sha256.slice(0, 12) },
  { header: 'UPDATED', value: (a) => a.updated_at },
];

/** One attachment as `field: value` lines. */
export const attachmentFields = (a: FlowAttachment) =>
  [
    ['id', a.id],
    ['flow_id', a.flow_id],
    ['path', a.path],
    ['size_bytes', String(a.size_bytes)],
    ['content_type', a.content_type],
    ['sha256', a.sha256],
    ['read_only', String(a.read_only)],
    ['created_at', a.created_at],
    ['updated_at', a.updated_at],
    ['updated_by', a.updated_by],
  ] as const;
