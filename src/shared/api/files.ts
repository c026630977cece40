import { z } from 'zod';
import { pageShape } from './query.js';
import { pathId } from './id-schemas.js';

/** Wire schemas of files (`file:view|manage`, and the workers' `device-download-url`). docs/files.md. */

export const filePath = z.object({ file_id: pathId });
export const namedFilePath = z.object({ file_id: pathId, filename: z.string() });

const bool = z.enum(['true', 'false']);
const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256 in lower-case hex');

/**
 * The streamed upload's metadata, in its query (the body is the file's bytes). `name` and `folder` are
 * checked by the service (422 `invalid_file_path` names the field and the reason), not here, so a
 * traversal attempt answers its own code.
 */
export const uploadFileQuery = z
  .object({
    name: z.string().max(1024),
    folder: z.string().max(1024).optional(),
    sha256: sha256.optional().describe('The expected SHA-256: a mismatch answers 422 `checksum_mismatch` and keeps nothing'),
    overwrite: bool.optional().describe('Replace the bytes of a file of this folder and name (its id stays)'),
  })
  .strict();

export const importFileBody = z
  .object({
    url: z.string().max(2048),
    name: z.string().max(1024).optional().describe("Default: the URL path's last segment"),
    folder: z.string().max(1024).optional(),
    sha256: sha256.optional(),
    overwrite: z.boolean().optional(),
  })
  .strict();

export const moveFileBody = z
  .object({ folder: z.string().max(1024).optional(), name: z.string().max(1024).optional() })
  .strict()
  .refine((b) => b.folder !== undefined || b.name !== undefined, { message: 'give folder or name' });

export const deleteFileQuery = z.object({ force: bool.optional().describe('Delete even when flows or runs use the file') }).strict();

/** Where a listed file is and what it is called: the filters file lists share (files, binary artifacts). */
export const filePlaceFilters = {
  repository_id: z.guid().optional(),
  folder: z.string().max(1024).optional().describe('Exactly this folder (`` is the root)'),
  recursive: bool.optional().describe('With `folder`: its subfolders too'),
  q: z.string().max(255).optional().describe('Name contains'),
};

export const listFilesQuery = z.object({ ...filePlaceFilters, content_type: z.string().max(255).optional(), ...pageShape }).strict();

export const downloadUrlBody = z
  .object({
    expires_in: z
      .number()
      .int()
      .min(1)
      .max(7 * 24 * 3600)
      .optional()
      .describe('Seconds (default SERVICE_FILE_URL_TTL_SECONDS)'),
  })
  .strict();

/** The presigned URL's own query: when it ends and its HMAC. */
export const signedUrlQuery = z.object({ expires: z.string().optional(), signature: z.string().optional() }).strict();

export const file = z.object({
  id: z.string(),
  org_id: z.string(),
  repository_id: z.string(),
  folder: z.string(),
  name: z.string(),
  /** `folder/name`, or `name` at the root. */
  path: z.string(),
  content_type: z.string(),
  size_bytes: z.number().int(),
  sha256: z.string(),
  revision: z.number().int(),
  source_url: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  created_by: z.string().nullable(),
  updated_by: z.string().nullable(),
});
export type FileView = z.infer<typeof file>;

export const fileList = z.object({
  items: z.array(file),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

export const signedUrl = z.object({ url: z.string(), method: z.literal('GET'), expires_at: z.string() });

export const fileUsage = z.object({
  file_id: z.string(),
  in_use: z.boolean(),
  flows: z.array(z.object({ flow_id: z.string(), name: z.string(), versions: z.array(z.number().int()), draft: z.boolean() })),
  runs: z.array(z.object({ run_id: z.string(), name: z.string(), status: z.string(), flow_version: z.number().int() })),
  /** Live static inventory providers whose YAML document is this file (`config.document_file_id`). */
  inventory_providers: z.array(z.object({ provider_id: z.string(), name: z.string() })),
});
export type FileUsage = z.infer<typeof fileUsage>;

/** A file's bytes, as the OpenAPI document names them. */
export const fileBytes = z.string().describe('The file bytes');
