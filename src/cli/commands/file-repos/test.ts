import type { Command } from 'commander';
import type { ConnectionReport } from '../../../shared/api/file-repositories.js';
import { CliError } from '../../errors.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printTable } from '../../runtime/table.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { repositoryId } from '../files/resolve.js';

export interface FileReposTestOptions {
  readonly repo: string;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description('Check that the repository answers and lets the daemon write, read and delete; exit 1 when a check fails.')
      .argument('<repo>', 'repository id, or its name'),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runFileReposTest({ repo: positionals[0]!, json: flag.json(raw) }, ctx);

/**
 * `POST /file-repositories/{id}/test-connection`: each check (`reach`, `write`, `read`, `delete`) with
 * its coded reason when it failed, on stdout either way; a failed one then exits 1, so
 * `svc file-repos test REPO && …` can gate a script.
 */
export async function runFileReposTest(options: FileReposTestOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await repositoryId(client, options.repo);
  const report = (await client.request({ method: 'POST', path: `/file-repositories/${enc(id)}/test-connection` })).body as ConnectionReport;
  if (options.json) printJson(ctx.io, report);
  else
    printTable(
      ctx.io,
      report.checks,
      [
        { header: 'CHECK', value: (c) => c.check },
        { header: 'OK', value: (c) => (c.ok ? 'yes' : 'no') },
        { header: 'REASON', value: (c) => c.reason ?? null },
      ],
      'No checks.',
    );
  if (!report.ok) {
    const failed = report.checks.filter((c) => !c.ok).map((c) => `${c.check}: ${c.reason ?? 'failed'}`);
    throw new CliError('error', `file repository ${id} failed its connection test (${failed.join(', ')})`);
  }
}
