import type { Command } from 'commander';
import type { UpdateBackendBody } from '../../../shared/api/secrets.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { enc, flag, jsonFlag, someChange } from '../shared.js';
import type { Invoke } from '../verb.js';
import { backendArgument, backendId, BACKENDS_PATH } from './resolve.js';
import type { SecretBackendView } from './views.js';

export interface SecretBackendsUpdateOptions {
  /** A backend id or its name. */
  readonly backend: string;
  readonly changes: UpdateBackendBody;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    backendArgument(command.description('Rename a secret backend, or make it the default; its type, scheme and config are fixed.'))
      .option('--name <name>', 'its new name')
      .option('--default', 'make it the default backend (the previous default loses the mark)'),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runSecretBackendsUpdate({ backend: positionals[0]!, changes: backendChanges(raw), json: flag.json(raw) }, ctx);

/**
 * The fields the flags change; none at all is a usage error (exit 2). There is no way to unset the
 * default: one backend always is, so the mark only moves by setting it on another.
 */
export function backendChanges(raw: Record<string, unknown>): UpdateBackendBody {
  return someChange({ name: flag.string(raw, 'name'), is_default: raw.default === true ? true : undefined }, '--name or --default');
}

/** `PATCH /settings/secrets-backends/{backend_id}`: the backend's id on stdout, `--json` the backend. */
export async function runSecretBackendsUpdate(options: SecretBackendsUpdateOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await backendId(client, options.backend);
  const updated = (await client.request({ method: 'PATCH', path: `${BACKENDS_PATH}/${enc(id)}`, body: options.changes }))
    .body as SecretBackendView;
  if (options.json) return printJson(ctx.io, updated);
  ctx.io.err(`Updated secret backend ${updated.name}${updated.is_default ? ', the default' : ''}.\n`);
  ctx.io.out(`${updated.id}\n`);
}
