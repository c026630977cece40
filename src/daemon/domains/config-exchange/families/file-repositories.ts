import { z } from 'zod';
import { createFileRepositoryBody, FILE_REPOSITORY_KINDS } from '../../../../shared/api/file-repositories.js';
import { atMostOne, orgOf } from '../family.js';
import { OrgRowsRepo } from '../repos/org-rows-repo.js';
import { bodyIssues, orgTableFamily } from './org-table-family.js';

const item = z
  .object({
    name: z.string().min(1).max(100),
    kind: z.enum(FILE_REPOSITORY_KINDS),
    description: z.string().max(1000).nullable().default(null),
    config: z.record(z.string(), z.unknown()).default({}).describe('s3: endpoint, region, bucket, prefix and secret references'),
    is_default: z.boolean().default(false),
  })
  .strict();
type Item = z.infer<typeof item>;

/** File repositories (docs/files.md), keyed by name: where files are kept, not the files. */
export function fileRepositoriesFamily() {
  const repo = new OrgRowsRepo('file_repositories', ['config_json']);
  return orgTableFamily<Item>({
    name: 'file_repositories',
    summary: "The organization's file repositories (their configuration, not their files), keyed by name.",
    item,
    repo,
    columns: ['name', 'kind', 'description', 'config_json', 'is_default'],
    keyOf: (i) => i.name,
    where: (i) => ({ name: i.name }),
    check: (i) =>
      bodyIssues(createFileRepositoryBody, i.kind === 'local' && Object.keys(i.config).length === 0 ? { ...i, config: undefined } : i),
    // Applying two defaults would leave only the last one the default: the bundle could never be met.
    checkSection: (items) => atMostOne(items, (i) => i.is_default, 'is_default', 'at most one file repository is the default'),
    fromRow: ({ config_json, ...r }) => ({ ...r, config: config_json }) as Item,
    toRow: ({ config, ...i }) => ({ ...i, config_json: config }),
    audit: { action: 'file_repository:manage', resourceType: 'file_repository' },
    async beforeWrite(ctx, i) {
      // One default per organization: the bundle's default takes the flag from the target's.
      if (i.is_default)
        await ctx
          .db('file_repositories')
          .where({ org_id: orgOf(ctx).id, is_default: true })
          .whereNot({ name: i.name })
          .update({ is_default: false });
    },
    async inUse(ctx, id) {
      const files = await repo.referencing(ctx.db, 'files', 'repository_id', id);
      return files > 0 ? `the repository holds ${files} file(s).` : null;
    },
  });
}
