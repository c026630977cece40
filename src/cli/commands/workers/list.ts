import type { Command } from 'commander';
import type { Worker } from '../../../shared/api/workers.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { type Column, type OffsetPage, printPage } from '../../runtime/table.js';
import { positiveNumber } from '../runs/inputs.js';
import { flag, jsonFlag, oneOf } from '../shared.js';
import type { Invoke } from '../verb.js';

export interface WorkersListOptions {
  readonly status: 'online' | 'offline' | undefined;
  readonly limit: number | undefined;
  readonly json: boolean;
}

const COLUMNS: Column<Worker>[] = [
  { header: 'ID', value: (w) => w.id },
  { header: 'STATUS', value: (w) => (w.draining ? `${w.status}, draining` : w.status) },
  { header: 'RUNNING', value: (w) => `${w.running}/${w.capacity}` },
  { header: 'HOSTNAME', value: (w) => w.hostname },
  { header: 'VERSION', value: (w) => w.version },
  { header: 'HANDLERS', value: (w) => w.handlers.length },
  { header: 'LAST SEEN', value: (w) => w.last_seen_at },
];

export function define(command: Command): void {
  jsonFlag(
    command
      .description('Workers of the platform, newest seen first: online while their heartbeats arrive within a lease, what they run.')
      .option('--status <status>', 'only online or offline ones')
      .option('--limit <n>', 'at most this many (1-500, default 50)'),
  );
}

export const invoke: Invoke = ({ raw, ctx }) => runWorkersList(parseWorkersListOptions(raw), ctx);

export function parseWorkersListOptions(raw: Record<string, unknown>): WorkersListOptions {
  return {
    status: oneOf(flag.string(raw, 'status'), ['online', 'offline'], '--status'),
    limit: positiveNumber(raw, 'limit', '--limit'),
    json: flag.json(raw),
  };
}

/** `GET /workers`. `--json`: the daemon's page `{items, total, limit, offset}`. */
export async function runWorkersList(options: WorkersListOptions, ctx: Context): Promise<void> {
  const query: Record<string, string> = {};
  if (options.status !== undefined) query.status = options.status;
  if (options.limit !== undefined) query.limit = String(options.limit);
  const page = (await ctx.apiClient().request({ method: 'GET', path: '/workers', query })).body as OffsetPage<Worker>;
  if (options.json) return printJson(ctx.io, page);
  printPage(ctx.io, page, COLUMNS, options.status === 'online' ? 'No worker is online: queued runs wait.' : 'No workers.');
}
