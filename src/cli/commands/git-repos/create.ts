import type { Command } from 'commander';
import type { GitRepository } from '../../../shared/api/git.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { authFlags, authOf } from './resolve.js';

export interface GitReposCreateOptions {
  readonly name: string;
  readonly url: string;
  readonly branch: string | undefined;
  readonly auth: Awaited<ReturnType<typeof authOf>>;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    authFlags(
      command
        .description('Add a git repository flows can link to; credentials go in as secret references, never in the URL.')
        .argument('<name>', 'its name')
        .argument('<url>', 'https://, http://, ssh:// or user@host:path')
        .option('--branch <branch>', 'the default branch (default main)'),
    ),
  );
}

export const invoke: Invoke = async ({ positionals, raw, ctx }) =>
  runGitReposCreate(
    { name: positionals[0]!, url: positionals[1]!, branch: flag.string(raw, 'branch'), auth: await authOf(raw), json: flag.json(raw) },
    ctx,
  );

/** `POST /git-repositories`: the new repository's id on stdout, `--json` the repository. */
export async function runGitReposCreate(options: GitReposCreateOptions, ctx: Context): Promise<void> {
  const body = {
    name: options.name,
    url: options.url,
    ...(options.branch === undefined ? {} : { default_branch: options.branch }),
    ...(options.auth === undefined ? {} : { auth: options.auth }),
  };
  const created = (await ctx.apiClient().request({ method: 'POST', path: '/git-repositories', body })).body as GitRepository;
  if (options.json) return printJson(ctx.io, created);
  ctx.io.err(`Added git repository ${created.name} (${created.url}, ${created.default_branch}).\n`);
  ctx.io.out(`${created.id}\n`);
}
