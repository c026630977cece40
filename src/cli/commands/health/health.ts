import type { Command } from 'commander';
import type { HealthCheck, PlatformHealthAnswer } from '../../../shared/api/platform-health.js';
import { CliError } from '../../errors.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { type Column, printTable } from '../../runtime/table.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';

export interface HealthOptions {
  readonly json: boolean;
}

/** What a check found, in a line: its coded reason when it has one, else its detail's short values. */
function summary(check: HealthCheck): string {
  if (typeof check.detail.reason === 'string') return check.detail.reason;
  return Object.entries(check.detail)
    .filter(([, value]) => value === null || typeof value !== 'object')
    .map(([key, value]) => `${key}=${String(value)}`)
    .join(' ');
}

const COLUMNS: Column<HealthCheck>[] = [
  { header: 'CHECK', value: (c) => c.name },
  { header: 'STATUS', value: (c) => c.status },
  { header: 'MS', value: (c) => c.latency_ms },
  { header: 'DETAIL', value: summary },
];

export function define(command: Command): void {
  jsonFlag(
    command.description(
      "The platform's health (platform admins): database, identity provider, secret backends, workers, scheduler, maintenance, registry, file repositories. Exit 1 when it is down.",
    ),
  );
}

export const invoke: Invoke = ({ raw, ctx }) => runHealth({ json: flag.json(raw) }, ctx);

/**
 * `GET /platform/health` (always 200: the report is the answer). The checks on stdout; the overall
 * status on stderr, and exit 1 when it is `down`, so a monitor can run `svc health` as its probe.
 */
export async function runHealth(options: HealthOptions, ctx: Context): Promise<void> {
  const report = (await ctx.apiClient().request({ method: 'GET', path: '/platform/health' })).body as PlatformHealthAnswer;
  if (options.json) printJson(ctx.io, report);
  else {
    printTable(ctx.io, report.checks, COLUMNS, 'No checks.');
    ctx.io.err(`Platform ${report.status} (checked ${report.checked_at}${report.cached ? ', a report of a few seconds ago' : ''}).\n`);
  }
  if (report.status === 'down')
    throw new CliError(
      'error',
      `the platform is down: ${report.checks
        .filter((c) => c.status === 'down')
        .map((c) => c.name)
        .join(', ')}`,
    );
}
