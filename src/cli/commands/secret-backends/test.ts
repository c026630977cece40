import type { Command } from 'commander';
import { CliError } from '../../errors.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printRecord } from '../../runtime/table.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { backendArgument, backendId, BACKENDS_PATH } from './resolve.js';
import type { SecretBackendTestView } from './views.js';

export interface SecretBackendsTestOptions {
  /** A backend id or its name. */
  readonly backend: string;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(backendArgument(command.description('Check that a secret backend works and say how it went; exit 1 when it does not.')));
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runSecretBackendsTest({ backend: positionals[0]!, json: flag.json(raw) }, ctx);

/** `POST /settings/secrets-backends/{backend_id}/test`: the outcome on stdout either way; not `ok` exits 1, so a script can gate on it. */
export async function runSecretBackendsTest(options: SecretBackendsTestOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await backendId(client, options.backend);
  const answer = (await client.request({ method: 'POST', path: `${BACKENDS_PATH}/${enc(id)}/test` })).body as SecretBackendTestView;
  if (options.json) printJson(ctx.io, answer);
  else
    printRecord(ctx.io, [
      ['ok', answer.ok ? 'yes' : 'no'],
      ['detail', answer.detail],
    ]);
  if (!answer.ok) throw new CliError('error', `secret backend ${id} failed its test (${answer.detail})`);
}
