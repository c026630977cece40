import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printRecord } from '../../runtime/table.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { backendArgument, backendId, BACKENDS_PATH } from './resolve.js';
import { backendFields, type SecretBackendView } from './views.js';

export interface SecretBackendsGetOptions {
  /** A backend id or its name. */
  readonly backend: string;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(backendArgument(command.description('One secret backend: its type, scheme, connection settings and use.')));
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runSecretBackendsGet({ backend: positionals[0]!, json: flag.json(raw) }, ctx);

/** `GET /settings/secrets-backends/{backend_id}`: `field: value` lines, `--json` the backend. */
export async function runSecretBackendsGet(options: SecretBackendsGetOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await backendId(client, options.backend);
  const backend = (await client.request({ method: 'GET', path: `${BACKENDS_PATH}/${enc(id)}` })).body as SecretBackendView;
  if (options.json) return printJson(ctx.io, backend);
  printRecord(ctx.io, backendFields(backend));
}
