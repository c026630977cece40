import type { Command } from 'commander';
import { FILE_REPOSITORY_KINDS, type FileRepository } from '../../../shared/api/file-repositories.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { jsonObjectFlag } from '../json-object-flag.js';
import { flag, jsonFlag, oneOf } from '../shared.js';
import type { Invoke } from '../verb.js';

export interface FileReposCreateOptions {
  readonly name: string;
  readonly kind: string;
  readonly config: Record<string, unknown> | undefined;
  readonly description: string | undefined;
  readonly isDefault: boolean;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description("Create a file repository: a directory of the daemon's (local) or an S3 bucket whose credentials are secret references.")
      .argument('<name>', 'its name')
      .requiredOption('--kind <kind>', `where the files are kept (${FILE_REPOSITORY_KINDS.join(', ')})`)
      .option(
        '--config <json>',
        'the S3 settings (region, bucket, prefix, endpoint, *_ref credentials): a JSON object, @FILE, or - for stdin',
      )
      .option('--description <text>', 'what it is for')
      .option('--default', "make it the organization's default repository"),
  );
}

export const invoke: Invoke = async ({ positionals, raw, ctx }) =>
  runFileReposCreate(
    {
      name: positionals[0]!,
      kind: oneOf(flag.string(raw, 'kind'), FILE_REPOSITORY_KINDS, '--kind')!,
      config: await jsonObjectFlag(raw, 'config', '--config', ctx),
      description: flag.string(raw, 'description'),
      isDefault: raw.default === true,
      json: flag.json(raw),
    },
    ctx,
  );

/** `POST /file-repositories`: the new repository's id on stdout, `--json` the repository. */
export async function runFileReposCreate(options: FileReposCreateOptions, ctx: Context): Promise<void> {
  const body = {
    kind: options.kind,
    name: options.name,
    ...(options.config === undefined ? {} : { config: options.config }),
    ...(options.description === undefined ? {} : { description: options.description }),
    ...(options.isDefault ? { is_default: true } : {}),
  };
  const created = (await ctx.apiClient().request({ method: 'POST', path: '/file-repositories', body })).body as FileRepository;
  if (options.json) return printJson(ctx.io, created);
  ctx.io.err(`Created ${created.kind} file repository ${created.name}${created.is_default ? ', the default' : ''}.\n`);
  ctx.io.out(`${created.id}\n`);
}
