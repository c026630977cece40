import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printPage } from '../../runtime/table.js';
import { positiveNumber } from '../runs/inputs.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { repoFlag, repositoryId } from './resolve.js';
import { FILE_COLUMNS, type FileList } from './types.js';

export interface FilesListOptions {
  readonly repo: string | undefined;
  readonly folder: string | undefined;
  readonly recursive: boolean;
  readonly q: string | undefined;
  readonly contentType: string | undefined;
  readonly limit: number | undefined;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    repoFlag(command.description("The organization's files and the shared organization's, by folder and name."), 'only this repository')
      .option('--folder <path>', 'only this folder ("" is the root)')
      .option('--recursive', 'with --folder: its subfolders too')
      .option('--q <text>', 'only names containing this')
      .option('--content-type <type>', 'only this content type')
      .option('--limit <n>', 'at most this many (1-500, default 50)'),
  );
}

export const invoke: Invoke = ({ raw, ctx }) => runFilesList(parseFilesListOptions(raw), ctx);

export function parseFilesListOptions(raw: Record<string, unknown>): FilesListOptions {
  return {
    repo: flag.string(raw, 'repo'),
    folder: typeof raw.folder === 'string' ? raw.folder : undefined,
    recursive: raw.recursive === true,
    q: flag.string(raw, 'q'),
    contentType: flag.string(raw, 'contentType'),
    limit: positiveNumber(raw, 'limit', '--limit'),
    json: flag.json(raw),
  };
}

/** `GET /files`. `--json`: the daemon's page `{items, total, limit, offset}`. */
export async function runFilesList(options: FilesListOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const query: Record<string, string> = {};
  if (options.repo !== undefined) query.repository_id = await repositoryId(client, options.repo);
  if (options.folder !== undefined) query.folder = options.folder;
  if (options.recursive) query.recursive = 'true';
  if (options.q !== undefined) query.q = options.q;
  if (options.contentType !== undefined) query.content_type = options.contentType;
  if (options.limit !== undefined) query.limit = String(options.limit);
  const page = (await client.request({ method: 'GET', path: '/files', query })).body as FileList;
  if (options.json) return printJson(ctx.io, page);
  printPage(ctx.io, page, FILE_COLUMNS, 'No files.');
}
