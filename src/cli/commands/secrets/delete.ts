import type { Command } from 'commander';
import { confirmDestructive } from '../../runtime/confirm.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { enc, flag, jsonFlag, yesFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { secretArgument, secretId } from './resolve.js';

export interface SecretsDeleteOptions {
  readonly secret: string;
  readonly yes: boolean;
  readonly json: boolean;
}

export function define(command: Command): void {
  yesFlag(jsonFlag(secretArgument(command.description('Delete a secret and its values in the backend, for good (no restore).'))));
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runSecretsDelete({ secret: positionals[0]!, yes: flag.yes(raw), json: flag.json(raw) }, ctx);

/** `DELETE /secrets/{secret_id}` (hard: the folder goes from the backend). `--json`: `{id, deleted: true}`. */
export async function runSecretsDelete(options: SecretsDeleteOptions, ctx: Context): Promise<void> {
  await confirmDestructive(ctx.io, `Delete secret ${options.secret} and its values for good`, options.yes);
  const client = ctx.apiClient();
  const id = await secretId(client, options.secret);
  await client.request({ method: 'DELETE', path: `/secrets/${enc(id)}` });
  if (options.json) printJson(ctx.io, { id, deleted: true });
  else ctx.io.err(`Deleted secret ${id}.\n`);
}
