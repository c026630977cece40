import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printTable } from '../../runtime/table.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { fileArgument, fileId, repoFlag } from './resolve.js';
import type { FileUsage } from './types.js';

export interface FilesUsageOptions {
  readonly file: string;
  readonly repo: string | undefined;
  readonly json: boolean;
}

interface UseLine {
  readonly kind: string;
  readonly id: string;
  readonly name: string;
  readonly detail: string;
}

export function define(command: Command): void {
  jsonFlag(
    repoFlag(
      fileArgument(
        command.description(
          'Who uses the file: flows naming it (draft or committed versions), their unfinished runs, inventory providers.',
        ),
      ),
      'look the path up in this repository',
    ),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runFilesUsage({ file: positionals[0]!, repo: flag.string(raw, 'repo'), json: flag.json(raw) }, ctx);

/** `GET /files/{file_id}/usage`: one line per flow, run and provider. */
export async function runFilesUsage(options: FilesUsageOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await fileId(client, options.file, options.repo);
  const usage = (await client.request({ method: 'GET', path: `/files/${enc(id)}/usage` })).body as FileUsage;
  if (options.json) return printJson(ctx.io, usage);
  const lines: UseLine[] = [
    ...usage.flows.map((f) => ({
      kind: 'flow',
      id: f.flow_id,
      name: f.name,
      detail: [f.draft ? 'draft' : '', f.versions.length > 0 ? `versions ${f.versions.join(',')}` : ''].filter(Boolean).join('; '),
    })),
    ...usage.runs.map((r) => ({ kind: 'run', id: r.run_id, name: r.name, detail: `${r.status}, version ${r.flow_version}` })),
    ...usage.inventory_providers.map((p) => ({ kind: 'inventory_provider', id: p.provider_id, name: p.name, detail: '' })),
  ];
  printTable(
    ctx.io,
    lines,
    [
      { header: 'KIND', value: (l) => l.kind },
      { header: 'ID', value: (l) => l.id },
      { header: 'NAME', value: (l) => l.name },
      { header: 'DETAIL', value: (l) => l.detail },
    ],
    'Nothing uses this file.',
  );
}
