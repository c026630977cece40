import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printRecord } from '../../runtime/table.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { secretArgument, secretId } from './resolve.js';
import { secretFields, type SecretDetailView } from './types.js';

export interface SecretsGetOptions {
  readonly secret: string;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    secretArgument(command.description('One secret: its backend, reference and key names (read live from the backend). Never a value.')),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runSecretsGet({ secret: positionals[0]!, json: flag.json(raw) }, ctx);

/** `GET /secrets/{secret_id}`. */
export async function runSecretsGet(options: SecretsGetOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await secretId(client, options.secret);
  const secret = (await client.request({ method: 'GET', path: `/secrets/${enc(id)}` })).body as SecretDetailView;
  if (options.json) return printJson(ctx.io, secret);
  printRecord(ctx.io, secretFields(secret));
}
