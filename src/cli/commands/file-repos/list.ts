import type { Command } from 'commander';
import type { FileRepository } from '../../../shared/api/file-repositories.js';
import { usageError } from '../../errors.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printPage, type Column } from '../../runtime/table.js';
import { positiveNumber } from '../runs/inputs.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';

export interface FileReposListOptions {
  readonly kind: string | undefined;
  readonly q: string | undefined;
  readonly limit: number | undefined;
  readonly json: boolean;
}

interface FileRepositoryList {
  readonly items: FileRepository[];
  readonly total: number;
}

const COLUMNS: Column<FileRepository>[] = [
  { header: 'ID', value: (r) => r.id },
  { header: 'NAME', value: (r) => r.name },
  { header: 'KIND', value: (r) => r.kind },
  { header: 'DEFAULT', value: (r) => (r.is_default ? 'yes' : 'no') },
  { header: 'FILES', value: (r) => String(r.file_count) },
  { header: 'BYTES', value: (r) => String(r.size_bytes) },
  { header: 'UPDATED', value: (r) => r.updated_at },
];

export function define(command: Command): void {
  jsonFlag(
    command
      .description("The organization's file repositories and the shared organization's, with their files' count and bytes.")
      .option('--kind <kind>', 'only this kind: local, s3')
      .option('--q <text>', 'only names containing this')
      .option('--limit <n>', 'at most this many (1-500, default 50)'),
  );
}

export const invoke: Invoke = ({ raw, ctx }) => runFileReposList(parseFileReposListOptions(raw), ctx);

export function parseFileReposListOptions(raw: Record<string, unknown>): FileReposListOptions {
  const kind = flag.string(raw, 'kind');
  if (kind !== undefined && kind !== 'local' && kind !== 's3') throw usageError('--kind must be local or s3');
  return { kind, q: flag.string(raw, 'q'), limit: positiveNumber(raw, 'limit', '--limit'), json: flag.json(raw) };
}

/** `GET /file-repositories`. `--json`: the daemon's page `{items, total, limit, offset}`. */
export async function runFileReposList(options: FileReposListOptions, ctx: Context): Promise<void> {
  const query: Record<string, string> = {};
  if (options.kind !== undefined) query.kind = options.kind;
  if (options.q !== undefined) query.q = options.q;
  if (options.limit !== undefined) query.limit = String(options.limit);
  const page = (await ctx.apiClient().request({ method: 'GET', path: '/file-repositories', query })).body as FileRepositoryList;
  if (options.json) return printJson(ctx.io, page);
  printPage(ctx.io, page, COLUMNS, 'No file repositories.');
}
