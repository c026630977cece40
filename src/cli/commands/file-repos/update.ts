import type { Command } from 'commander';
import type { FileRepository, UpdateFileRepositoryBody } from '../../../shared/api/file-repositories.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { repositoryId } from '../files/resolve.js';
import { jsonObjectFlag } from '../json-object-flag.js';
import { clearable, enc, flag, jsonFlag, someChange } from '../shared.js';
import type { Invoke } from '../verb.js';

export interface FileReposUpdateOptions {
  /** A repository id or its name. */
  readonly repo: string;
  readonly changes: UpdateFileRepositoryBody;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description("Change a file repository's name, description or S3 settings; its kind is fixed (the files stay where they are).")
      .argument('<repo>', 'repository id, or its name')
      .option('--name <name>', 'a new name')
      .option('--description <text>', 'what it is for; empty clears it')
      .option('--config <json>', 'the S3 settings, replaced whole: a JSON object, @FILE, or - for stdin'),
  );
}

export const invoke: Invoke = async ({ positionals, raw, ctx }) =>
  runFileReposUpdate({ repo: positionals[0]!, changes: await repositoryChanges(raw, ctx), json: flag.json(raw) }, ctx);

/** The fields the flags change; none at all is a usage error (exit 2). */
export async function repositoryChanges(raw: Record<string, unknown>, ctx: Context): Promise<UpdateFileRepositoryBody> {
  const config = await jsonObjectFlag(raw, 'config', '--config', ctx);
  const description = clearable(raw, 'description');
  const changes = { name: flag.string(raw, 'name'), description, config: config as UpdateFileRepositoryBody['config'] | undefined };
  return someChange(changes, '--name, --description or --config');
}

/** `PATCH /file-repositories/{id}`: the repository's id on stdout, `--json` the repository. */
export async function runFileReposUpdate(options: FileReposUpdateOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await repositoryId(client, options.repo);
  const updated = (await client.request({ method: 'PATCH', path: `/file-repositories/${enc(id)}`, body: options.changes }))
    .body as FileRepository;
  if (options.json) return printJson(ctx.io, updated);
  ctx.io.err(`Updated file repository ${updated.name}.\n`);
  ctx.io.out(`${updated.id}\n`);
}
