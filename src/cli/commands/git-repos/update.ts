import type { Command } from 'commander';
import type { GitRepository, UpdateGitRepositoryBody } from '../../../shared/api/git.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { enc, flag, jsonFlag, someChange } from '../shared.js';
import type { Invoke } from '../verb.js';
import { authFlags, authOf, repositoryId } from './resolve.js';

export interface GitReposUpdateOptions {
  /** A repository id or its name. */
  readonly repo: string;
  readonly changes: UpdateGitRepositoryBody;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    authFlags(
      command
        .description("Change a git repository's name, URL, default branch or credentials.")
        .argument('<repo>', 'repository id, or its name')
        .option('--name <name>', 'a new name')
        .option('--url <url>', 'a new URL')
        .option('--branch <branch>', 'a new default branch'),
    ).option('--no-auth', 'no credentials: a public repository'),
  );
}

export const invoke: Invoke = async ({ positionals, raw, ctx }) =>
  runGitReposUpdate({ repo: positionals[0]!, changes: await repositoryChanges(raw), json: flag.json(raw) }, ctx);

/** The fields the flags change; none at all is a usage error (exit 2). */
export async function repositoryChanges(raw: Record<string, unknown>): Promise<UpdateGitRepositoryBody> {
  const auth = await authOf(raw);
  const changes: UpdateGitRepositoryBody = {
    name: flag.string(raw, 'name'),
    url: flag.string(raw, 'url'),
    default_branch: flag.string(raw, 'branch'),
    auth,
  };
  return someChange(changes, '--name, --url, --branch, --token, --ssh-key or --no-auth');
}

/** `PATCH /git-repositories/{repo_id}`: the repository's id on stdout, `--json` the repository. */
export async function runGitReposUpdate(options: GitReposUpdateOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await repositoryId(client, options.repo);
  const updated = (await client.request({ method: 'PATCH', path: `/git-repositories/${enc(id)}`, body: options.changes }))
    .body as GitRepository;
  if (options.json) return printJson(ctx.io, updated);
  ctx.io.err(`Updated git repository ${updated.name}.\n`);
  ctx.io.out(`${updated.id}\n`);
}
