import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printRecord } from '../../runtime/table.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { fileArgument, fileId, repoFlag } from './resolve.js';
import { fileFields, type FileView } from './types.js';

export interface FilesGetOptions {
  readonly file: string;
  readonly repo: string | undefined;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    repoFlag(
      fileArgument(command.description("One file's metadata: path, size, content type, SHA-256, revision.")),
      'look the path up in this repository',
    ),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runFilesGet({ file: positionals[0]!, repo: flag.string(raw, 'repo'), json: flag.json(raw) }, ctx);

/** `GET /files/{file_id}`. */
export async function runFilesGet(options: FilesGetOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await fileId(client, options.file, options.repo);
  const file = (await client.request({ method: 'GET', path: `/files/${enc(id)}` })).body as FileView;
  if (options.json) return printJson(ctx.io, file);
  printRecord(ctx.io, fileFields(file));
}
