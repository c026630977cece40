import { z } from 'zod';
import { pageShape } from './query.js';
import { pathId } from './id-schemas.js';

/** Wire schemas of flow attachments (`flow_attachment:view|manage`, the workers' `internal:resolve` reads). docs/flow-attachments.md. */

export const flowAttachmentsPath = z.object({ flow_id: pathId });
export const flowAttachmentPath = z.object({ flow_id: pathId, attachment_id: pathId });

const bool = z.enum(['true', 'false']);

/**
 * Paths are checked by the service (422 `invalid_file_path` names the field and the reason), not here,
 * so a traversal attempt answers its own code.
 */
export const uploadAttachmentQuery = z
  .object({
    path: z.string().max(1280).describe('Where the file goes: `site.yml`, `roles/ntp/tasks/main.yml`'),
    overwrite: bool.optional().describe('Replace the bytes of the attachment at this path (its id stays)'),
  })
  .strict();

export const bulkUploadQuery = z
  .object({
    folder: z.string().max(1024).optional().describe("The folder the archive's tree lands in (default the root)"),
    overwrite: bool.optional().describe('Replace attachments at the paths the archive holds (else any such path is 409)'),
  })
  .strict();

export const listAttachmentsQuery = z
  .object({
    folder: z.string().max(1024).optional().describe('Only attachments under this folder, at any depth'),
    q: z.string().max(255).optional().describe('Path contains'),
    ...pageShape,
  })
  .strict();

export const moveAttachmentBody = z.object({ path: z.string().max(1280) }).strict();

/**
 * One rename of a bulk rename: a file's path to another, or, when `from` ends in `/`, a folder: every
 * attachment under it moves under `to`.
 */
const renameEntry = z.object({ from: z.string().min(1).max(1280), to: z.string().min(1).max(1280) }).strict();
export const bulkRenameBody = z.object({ renames: z.array(renameEntry).min(1).max(10_000) }).strict();

export const flowAttachment = z.object({
  id: z.string(),
  flow_id: z.string(),
  org_id: z.string(),
  /** `folder/name`, or `name` at the root. */
  path: z.string(),
  folder: z.string(),
  name: z.string(),
  content_type: z.string(),
  size_bytes: z.number().int(),
  sha256: z.string(),
  read_only: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
  created_by: z.string().nullable(),
  updated_by: z.string().nullable(),
});
export type FlowAttachment = z.infer<typeof flowAttachment>;

export const flowAttachmentList = z.object({
  items: z.array(flowAttachment),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

export const bulkUploadResult = z.object({
  items: z.array(flowAttachment),
  created: z.number().int(),
  replaced: z.number().int(),
});

export const bulkRenameResult = z.object({ items: z.array(flowAttachment), moved: z.number().int() });

/** An attachment's bytes, as the OpenAPI document names them. */
export const attachmentBytes = z.string().describe('The attachment bytes');
/** A bulk upload's body, as the OpenAPI document names it. */
export const attachmentArchive = z.string().describe('A zip archive of the folder tree');

// The workers' reads (`internal:resolve`).

export const internalFlowAttachmentsPath = z.object({ flow_id: pathId });

export const internalAttachmentsQuery = z
  .object({
    step: z.string().max(64).optional().describe('Only what this step mounts (its `mounted_files` selectors; default all)'),
    path: z.string().max(1280).optional().describe("Answer this attachment's bytes instead of the manifest"),
  })
  .strict();

export const manifestItem = z.object({
  path: z.string(),
  size_bytes: z.number().int(),
  sha256: z.string(),
  content_type: z.string(),
  /** Where its bytes are: this route again with `?path=` (same credentials). */
  url: z.string(),
});
export type ManifestItem = z.infer<typeof manifestItem>;

export const attachmentManifest = z.object({
  flow_id: z.string(),
  org_id: z.string(),
  /** `draft`, or the committed version whose pins these are. */
  version: z.union([z.literal('draft'), z.number().int()]),
  run_id: z.string().nullable(),
  step: z.string().nullable(),
  items: z.array(manifestItem),
});
export type AttachmentManifest = z.infer<typeof attachmentManifest>;
