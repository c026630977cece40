import { z } from 'zod';
import { createGitRepositoryBody, gitAuth } from '../../../../shared/api/git.js';
import { urlRefusal } from '../../git/repository-url.js';
import { OrgRowsRepo } from '../repos/org-rows-repo.js';
import { bodyIssues, orgTableFamily } from './org-table-family.js';

const item = z
  .object({
    name: z.string().min(1).max(255),
    url: z.string().min(1).max(2048),
    default_branch: z.string().min(1).max(255).default('main'),
    auth: gitAuth.default({ type: 'none' }).describe('How the daemon authenticates: secret references, never values'),
  })
  .strict();
type Item = z.infer<typeof item>;

/** Git repositories (docs/git.md), keyed by name; fetch state and flow links stay behind. */
export function gitRepositoriesFamily() {
  return orgTableFamily<Item>({
    name: 'git_repositories',
    summary: "The organization's git repositories, keyed by name; credentials as secret references.",
    item,
    repo: new OrgRowsRepo('git_repositories'),
    columns: ['name', 'url', 'default_branch', 'auth_type', 'auth_username', 'secret_ref', 'known_hosts'],
    keyOf: (i) => i.name,
    where: (i) => ({ name: i.name }),
    check(i) {
      // A local path depends on the target's setting (docs/git.md): the apply takes it, as stored rows are.
      const refusal = urlRefusal(i.url, true);
      return [...bodyIssues(createGitRepositoryBody, i), ...(refusal ? [{ path: 'url', message: `refused: ${refusal}` }] : [])];
    },
    fromRow: (r) => {
      const auth: Record<string, unknown> = { type: r.auth_type };
      if (r.auth_type === 'token' && r.auth_username !== null) auth.username = r.auth_username;
      if (r.auth_type !== 'none') auth.secret_ref = r.secret_ref;
      if (r.auth_type === 'ssh_key' && r.known_hosts !== null) auth.known_hosts = r.known_hosts;
      return { name: r.name, url: r.url, default_branch: r.default_branch, auth } as Item;
    },
    toRow: (i) => ({
      name: i.name,
      url: i.url,
      default_branch: i.default_branch,
      auth_type: i.auth.type,
      auth_username: i.auth.type === 'token' ? (i.auth.username ?? null) : null,
      secret_ref: i.auth.type === 'none' ? null : i.auth.secret_ref,
      known_hosts: i.auth.type === 'ssh_key' ? (i.auth.known_hosts ?? null) : null,
    }),
    audit: { action: 'git_repository:manage', resourceType: 'git_repository' },
    async inUse(ctx, id) {
      const links = await ctx
        .db('flow_git_links as l')
        .join('flows as f', 'f.id', 'l.flow_id')
        .where('l.repo_id', id)
        .whereNull('f.deleted_at')
        .count<{ n: string | number }[]>('* as n');
      const n = Number(links[0]?.n ?? 0);
      return n > 0 ? `${n} flow(s) link to this repository.` : null;
    },
  });
}
