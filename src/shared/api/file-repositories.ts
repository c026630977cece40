import { z } from 'zod';
import { parseSecretReference } from '../secrets/reference.js';
import { pageShape } from './query.js';
import { pathId } from './id-schemas.js';

/**
 * Wire schemas of file repositories (`file_repository:view|manage|test`): where an organization's files
 * are kept. docs/files.md.
 */

export const FILE_REPOSITORY_KINDS = ['local', 's3'] as const;
export type FileRepositoryKind = (typeof FILE_REPOSITORY_KINDS)[number];

export const fileRepositoryPath = z.object({ file_repository_id: pathId });

/** A credential is named, never given: a secret reference (`builtin://orgs/<org>/secrets/<path>#key` or `{{ secret('name') }}`). */
const secretRef = z
  .string()
  .max(1100)
  .refine((text) => parseSecretReference(text) !== undefined, 'a secret reference');

/** An S3-compatible bucket: endpoint (any S3 API; empty for AWS itself), region, bucket, key prefix, credentials. */
export const s3Config = z
  .object({
    endpoint: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .optional(),
    region: z.string().min(1).max(64).default('us-east-1'),
    bucket: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'an S3 bucket name'),
    prefix: z
      .string()
      .max(512)
      .regex(/^(?:[A-Za-z0-9!_.*'()-]+\/)*$/, 'empty, or segments each ending in /')
      .default(''),
    force_path_style: z.boolean().default(true),
    access_key_id_ref: secretRef,
    secret_access_key_ref: secretRef,
  })
  .strict();

/** A local repository takes no settings: its directory is `<SERVICE_DATA_DIR>/files/<repository id>`. */
export const localConfig = z.object({}).strict();

const name = z.string().trim().min(1).max(100);
const description = z.string().max(1000).nullable();

export const createFileRepositoryBody = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('local'),
      name,
      description: description.optional(),
      config: localConfig.optional(),
      is_default: z.boolean().optional(),
    })
    .strict(),
  z
    .object({ kind: z.literal('s3'), name, description: description.optional(), config: s3Config, is_default: z.boolean().optional() })
    .strict(),
]);
export type CreateFileRepositoryBody = z.infer<typeof createFileRepositoryBody>;

/** `kind` is fixed at creation: files already stored stay where they are. `config` replaces the whole (s3) config. */
export const updateFileRepositoryBody = z
  .object({ name: name.optional(), description: description.optional(), config: s3Config.optional() })
  .strict()
  .refine((b) => b.name !== undefined || b.description !== undefined || b.config !== undefined, {
    message: 'give name, description or config',
  });
export type UpdateFileRepositoryBody = z.infer<typeof updateFileRepositoryBody>;

export const listFileRepositoriesQuery = z
  .object({
    kind: z.enum(FILE_REPOSITORY_KINDS).optional(),
    q: z.string().max(100).optional().describe('Name contains'),
    ...pageShape,
  })
  .strict();

export const fileRepository = z.object({
  id: z.string(),
  org_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  kind: z.enum(FILE_REPOSITORY_KINDS),
  /** S3: endpoint, region, bucket, prefix, force_path_style and the two secret references; local: `{}`. */
  config: z.record(z.string(), z.unknown()),
  is_default: z.boolean(),
  file_count: z.number().int(),
  size_bytes: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
  created_by: z.string().nullable(),
  updated_by: z.string().nullable(),
});
export type FileRepository = z.infer<typeof fileRepository>;

export const fileRepositoryList = z.object({
  items: z.array(fileRepository),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

export const fileRepositoryKinds = z.object({
  items: z.array(z.object({ kind: z.enum(FILE_REPOSITORY_KINDS), description: z.string(), config_fields: z.array(z.string()) })),
});

/** What `test-connection` found: each check with its outcome and, when it failed, a coded reason. */
export const CONNECTION_REASONS = [
  'unreachable',
  'credentials_unresolved',
  'access_denied',
  'bucket_not_found',
  'not_writable',
  'not_readable',
  'error',
] as const;
export const connectionReport = z.object({
  ok: z.boolean(),
  checks: z.array(
    z.object({ check: z.enum(['reach', 'write', 'read', 'delete']), ok: z.boolean(), reason: z.enum(CONNECTION_REASONS).optional() }),
  ),
});
export type ConnectionReport = z.infer<typeof connectionReport>;

export const folderQuery = z.object({ path: z.string().max(1024) }).strict();
export const folderBody = z.object({ path: z.string().max(1024) }).strict();
export const deleteFolderQuery = z
  .object({
    path: z.string().max(1024),
    force: z.enum(['true', 'false']).optional().describe('Remove the files in it too (none may be in use)'),
  })
  .strict();
export const renameFolderBody = z.object({ from: z.string().max(1024), to: z.string().max(1024) }).strict();
export const folderList = z.object({
  items: z.array(z.object({ path: z.string(), file_count: z.number().int() })),
});
export const folderAnswer = z.object({ path: z.string() });
export const renamedFolder = z.object({ from: z.string(), to: z.string(), files_moved: z.number().int() });
