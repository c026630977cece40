import type { Command } from 'commander';
import type { ImageRepositoryList } from '../../../shared/api/registry.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { type Column, printPage } from '../../runtime/table.js';
import { positiveNumber } from '../runs/inputs.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';

export interface ImagesListOptions {
  readonly namespace: string | undefined;
  readonly q: string | undefined;
  readonly limit: number | undefined;
  readonly json: boolean;
}

const COLUMNS: Column<ImageRepositoryList['items'][number]>[] = [
  { header: 'REPOSITORY', value: (r) => r.name },
  { header: 'NAMESPACE', value: (r) => r.namespace },
  { header: 'UPSTREAM', value: (r) => r.upstream },
];

export function define(command: Command): void {
  jsonFlag(
    command
      .description("Image repositories the organization sees in the registry: its own namespace's, the shared one's and global.")
      .option('--namespace <namespace>', 'only this namespace (orgs/<slug> or global)')
      .option('--q <text>', 'only names containing this')
      .option('--limit <n>', 'at most this many (1-500, default 50)'),
  );
}

export const invoke: Invoke = ({ raw, ctx }) =>
  runImagesList(
    {
      namespace: flag.string(raw, 'namespace'),
      q: flag.string(raw, 'q'),
      limit: positiveNumber(raw, 'limit', '--limit'),
      json: flag.json(raw),
    },
    ctx,
  );

/** `GET /images/repositories`. `--json`: the daemon's page `{items, total, limit, offset}`. */
export async function runImagesList(options: ImagesListOptions, ctx: Context): Promise<void> {
  const query: Record<string, string> = {};
  if (options.namespace !== undefined) query.namespace = options.namespace;
  if (options.q !== undefined) query.q = options.q;
  if (options.limit !== undefined) query.limit = String(options.limit);
  const page = (await ctx.apiClient().request({ method: 'GET', path: '/images/repositories', query })).body as ImageRepositoryList;
  if (options.json) return printJson(ctx.io, page);
  printPage(ctx.io, page, COLUMNS, 'No image repositories.');
}
