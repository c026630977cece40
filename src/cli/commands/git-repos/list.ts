import type { Command } from 'commander';
import type { GitRepository, GitRepositoryList } from '../../../shared/api/git.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printPage, type Column } from '../../runtime/table.js';
import { positiveNumber } from '../runs/inputs.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';

export interface GitReposListOptions {
  readonly query: string | undefined;
  readonly limit: number | undefined;
  readonly json: boolean;
}

const COLUMNS: Column<GitRepository>[] = [
  { header: 'ID', value: (r) => r.id },
  { header: 'NAME', value: (r) => r.name },
  { header: 'URL', value: (r) => r.url },
  { header: 'BRANCH', value: (r) => r.default_branch },
  { header: 'AUTH', value: (r) => r.auth.type },
  { header: 'FLOWS', value: (r) => String(r.linked_flows) },
  { header: 'FETCHED', value: (r) => r.last_fetched_at },
];

export function define(command: Command): void {
  jsonFlag(
    command
      .description("The organization's git repositories, by name.")
      .option('--query <text>', 'only those whose name contains this')
      .option('--limit <n>', 'at most this many (1-500, default 50)'),
  );
}

export const invoke: Invoke = ({ raw, ctx }) => runGitReposList(parseGitReposListOptions(raw), ctx);

export function parseGitReposListOptions(raw: Record<string, unknown>): GitReposListOptions {
  return { query: flag.string(raw, 'query'), limit: positiveNumber(raw, 'limit', '--limit'), json: flag.json(raw) };
}

/** `GET /git-repositories`. `--json`: the daemon's page `{items, total, limit, offset}`. */
export async function runGitReposList(options: GitReposListOptions, ctx: Context): Promise<void> {
  const query: Record<string, string> = {};
  if (options.query !== undefined) query.q = options.query;
  if (options.limit !== undefined) query.limit = String(options.limit);
  const page = (await ctx.apiClient().request({ method: 'GET', path: '/git-repositories', query })).body as GitRepositoryList;
  if (options.json) return printJson(ctx.io, page);
  printPage(ctx.io, page, COLUMNS, 'No git repositories.');
}
