import type { Command } from 'commander';
import { CliError } from '../../errors.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printRecord } from '../../runtime/table.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { credentialArgument, credentialId, type RegistryCredentialTest } from './types.js';

export interface RegistryCredentialsTestOptions {
  /** A credential id or its registry. */
  readonly credential: string;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(credentialArgument(command.description('Log in to the registry for real and say how it went; exit 1 when it refused.')));
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runRegistryCredentialsTest({ credential: positionals[0]!, json: flag.json(raw) }, ctx);

/** `POST /registry-credentials/{credential_id}/test`: the outcome on stdout either way; not `ok` exits 1, so a script can gate on it. */
export async function runRegistryCredentialsTest(options: RegistryCredentialsTestOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await credentialId(client, options.credential);
  const answer = (await client.request({ method: 'POST', path: `/registry-credentials/${enc(id)}/test` })).body as RegistryCredentialTest;
  if (options.json) printJson(ctx.io, answer);
  else
    printRecord(ctx.io, [
      ['ok', answer.ok ? 'yes' : 'no'],
      ['outcome', answer.outcome],
      ['http_status', answer.http_status],
      ['detail', answer.detail],
    ]);
  if (!answer.ok) throw new CliError('error', `the registry did not accept the login (${answer.outcome})`);
}
