import type { Command } from 'commander';
import type { RepositorySyncAnswer, SyncEntry } from '../../../shared/api/git.js';
import { CliError } from '../../errors.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printTable, type Column } from '../../runtime/table.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { repositoryId } from './resolve.js';

export interface GitReposSyncOptions {
  /** A repository id or its name. */
  readonly repo: string;
  readonly force: boolean;
  readonly json: boolean;
}

const COLUMNS: Column<SyncEntry>[] = [
  { header: 'FLOW', value: (e) => e.flow_id },
  { header: 'PATH', value: (e) => `${e.branch}:${e.path}` },
  { header: 'OUTCOME', value: (e) => e.outcome },
  { header: 'CODE', value: (e) => e.code },
  { header: 'COMMIT', value: (e) => e.commit_sha?.slice(0, 12) ?? null },
];

export function define(command: Command): void {
  jsonFlag(
    command
      .description('Pull every flow linked to the repository; one line per flow with its outcome.')
      .argument('<repo>', 'repository id, or its name')
      .option('--force', 'overwrite drafts with changes of their own'),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runGitReposSync(parseGitReposSyncOptions(positionals[0]!, raw), ctx);

export function parseGitReposSyncOptions(repo: string, raw: Record<string, unknown>): GitReposSyncOptions {
  return { repo, force: raw.force === true, json: flag.json(raw) };
}

/**
 * `POST /git-repositories/{repo_id}/sync`. A flow refused or failed is a line like the others; the
 * exit code is 1 when any was, so scripts see it.
 */
export async function runGitReposSync(options: GitReposSyncOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await repositoryId(client, options.repo);
  const answer = (await client.request({ method: 'POST', path: `/git-repositories/${enc(id)}/sync`, body: { force: options.force } }))
    .body as RepositorySyncAnswer;
  if (options.json) printJson(ctx.io, answer);
  else printTable(ctx.io, answer.items, COLUMNS, 'No flows link to this repository.');
  const failed = answer.items.filter((e) => e.outcome === 'refused' || e.outcome === 'failed').length;
  if (failed > 0) throw new CliError('error', `${failed} of ${answer.items.length} flow(s) were not synced`);
}
