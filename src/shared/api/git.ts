import { z } from 'zod';
import { pageShape } from './query.js';
import { pathId } from './id-schemas.js';

/**
 * Wire schemas of the git repository routes (`/git-repositories…`) and a flow's git link, pull, push,
 * sync history and YAML preview (`/flows/{flow_id}/…`). docs/git.md.
 */

/** A malformed id is no repository at all (404), so it is a plain string here. */
export const gitRepositoryPath = z.object({ repo_id: pathId });

export const GIT_AUTH_TYPES = ['none', 'token', 'ssh_key'] as const;
export const LINK_MODES = ['draft', 'version'] as const;

const branchName = z
  .string()
  .trim()
  .min(1)
  .max(255)
  .regex(/^(?!-)(?!.*\.\.)(?!.*\/\/)[A-Za-z0-9._/-]+(?<![./])$/, 'a branch name: letters, digits, `.`, `_`, `-` and `/`');
const filePath = z
  .string()
  .trim()
  .min(1)
  .max(1024)
  .regex(/^(?!\/)(?!.*(^|\/)\.\.?(\/|$))[^\0\\:]+$/, 'a relative path inside the repository, without `..`')
  .describe('A file path inside the repository, e.g. `flows/core-upgrade.yaml`');
/** A path a flow's file can be written to: also no empty segment (`a//b`, a trailing `/`) and no `.git` folder, which git refuses. */
const flowFilePath = filePath
  .regex(/^(?!.*\/\/)(?!.*\/$)/, 'a file path: no empty segment and no trailing `/`')
  .regex(/^(?!(.*\/)?\.git(\/|$))/i, 'a file path outside any `.git` folder');

/**
 * How the daemon authenticates to the remote: `token` sends `Authorization: Basic <username:token>`
 * (username `x-access-token` unless given) as an HTTP header, `ssh_key` a private key; both are secret
 * references, never values.
 */
export const gitAuth = z.discriminatedUnion('type', [
  z.object({ type: z.literal('none') }).strict(),
  z
    .object({
      type: z.literal('token'),
      username: z.string().trim().min(1).max(255).optional(),
      secret_ref: z.string().trim().min(1).max(1024).describe('Secret reference of the token'),
    })
    .strict(),
  z
    .object({
      type: z.literal('ssh_key'),
      secret_ref: z.string().trim().min(1).max(1024).describe('Secret reference of the private key'),
      known_hosts: z.string().max(65_536).optional().describe("Lines of an OpenSSH known_hosts file for the remote's host key"),
    })
    .strict(),
]);
export type GitAuth = z.infer<typeof gitAuth>;

export const createGitRepositoryBody = z
  .object({
    name: z.string().trim().min(1).max(255),
    url: z.string().trim().min(1).max(2048).describe('https://, http://, ssh:// or scp-like `user@host:path`'),
    default_branch: branchName.optional(),
    auth: gitAuth.optional(),
  })
  .strict();
export type CreateGitRepositoryBody = z.infer<typeof createGitRepositoryBody>;

export const updateGitRepositoryBody = z
  .object({ name: createGitRepositoryBody.shape.name, url: createGitRepositoryBody.shape.url, default_branch: branchName, auth: gitAuth })
  .partial()
  .strict();
export type UpdateGitRepositoryBody = z.infer<typeof updateGitRepositoryBody>;

export const listGitRepositoriesQuery = z.object({ q: z.string().max(255).optional(), ...pageShape }).strict();

export const gitRepository = z.object({
  id: z.string(),
  org_id: z.string(),
  name: z.string(),
  url: z.string(),
  default_branch: z.string(),
  auth: z.object({
    type: z.enum(GIT_AUTH_TYPES),
    username: z.string().optional(),
    secret_ref: z.string().optional(),
    known_hosts: z.string().optional(),
  }),
  linked_flows: z.number().int(),
  last_fetched_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  created_by: z.string().nullable(),
  updated_by: z.string().nullable(),
});
export type GitRepository = z.infer<typeof gitRepository>;

export const gitRepositoryList = z.object({
  items: z.array(gitRepository),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});
export type GitRepositoryList = z.infer<typeof gitRepositoryList>;

export const CONNECTION_REASONS = [
  'reachable',
  'authentication_failed',
  'branch_missing',
  'unreachable',
  'timeout',
  'credential_unavailable',
  'address_not_allowed',
] as const;

export const testConnectionBody = z.object({ branch: branchName.optional() }).strict();
export const connectionReport = z.object({
  ok: z.boolean(),
  reason: z.enum(CONNECTION_REASONS),
  branch: z.string(),
  head_sha: z.string().nullable(),
  detail: z.string(),
});
export type ConnectionReport = z.infer<typeof connectionReport>;

/** `ref`: a branch (the repository's default unless given); `path`: a folder (the root unless given) or a file. */
export const treeQuery = z.object({ ref: branchName.optional(), path: filePath.optional() }).strict();
export const fileQuery = z.object({ ref: branchName.optional(), path: filePath }).strict();

export const treeAnswer = z.object({
  ref: z.string(),
  commit_sha: z.string(),
  path: z.string(),
  entries: z.array(
    z.object({ name: z.string(), path: z.string(), type: z.enum(['blob', 'tree', 'commit']), size: z.number().int().nullable() }),
  ),
});
export const fileAnswer = z.object({
  ref: z.string(),
  commit_sha: z.string(),
  path: z.string(),
  size: z.number().int(),
  encoding: z.enum(['utf-8', 'base64']).describe('`utf-8` for a file that is UTF-8 text, else `base64` of its bytes'),
  content: z.string(),
});

export const syncBody = z.object({ force: z.boolean().optional() }).strict();
export const pushBody = z.object({ force: z.boolean().optional(), message: z.string().trim().max(2000).optional() }).strict();

export const SYNC_OUTCOMES = ['updated', 'committed', 'unchanged', 'pushed', 'refused', 'failed'] as const;

export const syncEntry = z.object({
  id: z.string(),
  repo_id: z.string().nullable(),
  flow_id: z.string().nullable(),
  direction: z.enum(['pull', 'push']),
  branch: z.string(),
  path: z.string(),
  commit_sha: z.string().nullable(),
  commit_author: z.string().nullable(),
  committed_at: z.string().nullable(),
  flow_version: z.number().int().nullable(),
  forced: z.boolean(),
  outcome: z.enum(SYNC_OUTCOMES),
  code: z.string().nullable().describe('The problem code of a refused or failed sync'),
  requested_by: z.string().nullable(),
  created_at: z.string(),
});
export type SyncEntry = z.infer<typeof syncEntry>;
export const syncHistoryQuery = z.object(pageShape).strict();
export const syncHistory = z.object({
  items: z.array(syncEntry),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

export const repositorySyncAnswer = z.object({
  repo_id: z.string(),
  items: z.array(syncEntry),
});
export type RepositorySyncAnswer = z.infer<typeof repositorySyncAnswer>;

export const flowGitLinkBody = z
  .object({
    repo_id: z.string(),
    branch: branchName.optional().describe("The repository's default branch unless given"),
    path: flowFilePath,
    mode: z.enum(LINK_MODES).optional().describe('What a pull writes: the draft (default) or a new committed version'),
  })
  .strict();

export const flowGitLink = z.object({
  flow_id: z.string(),
  repo_id: z.string(),
  branch: z.string(),
  path: z.string(),
  mode: z.enum(LINK_MODES),
  last_synced_sha: z.string().nullable(),
  last_synced_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type FlowGitLink = z.infer<typeof flowGitLink>;

export const yamlPreviewQuery = z
  .object({
    version: z
      .union([
        z.literal('draft'),
        z
          .string()
          .regex(/^\d{1,9}$/)
          .transform(Number),
      ])
      .optional(),
  })
  .strict();
export const yamlPreview = z.object({
  flow_id: z.string(),
  version: z.union([z.number().int(), z.literal('draft')]),
  yaml: z.string(),
});
export type YamlPreview = z.infer<typeof yamlPreview>;
