import type { Command } from 'commander';
import type { FileRepository } from '../../../shared/api/file-repositories.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { repositoryId } from '../files/resolve.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';

export interface FileReposSetDefaultOptions {
  /** A repository id or its name. */
  readonly repo: string;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description("Make a repository the organization's default: where uploads without --repo and new run artifacts go.")
      .argument('<repo>', 'repository id, or its name'),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runFileReposSetDefault({ repo: positionals[0]!, json: flag.json(raw) }, ctx);

/** `POST /file-repositories/{id}/set-default`: the repository's id on stdout, `--json` the repository. */
export async function runFileReposSetDefault(options: FileReposSetDefaultOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await repositoryId(client, options.repo);
  const answer = (await client.request({ method: 'POST', path: `/file-repositories/${enc(id)}/set-default` })).body as FileRepository;
  if (options.json) return printJson(ctx.io, answer);
  ctx.io.err(`File repository ${answer.name} is now the default.\n`);
  ctx.io.out(`${answer.id}\n`);
}
