import type { Command } from 'commander';
import type { CreateBackendBody } from '../../../shared/api/secrets.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { jsonObjectFlag } from '../json-object-flag.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { BACKENDS_PATH } from './resolve.js';
import type { SecretBackendView } from './views.js';

export interface SecretBackendsCreateOptions {
  readonly body: CreateBackendBody;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description(
        'Add a secret backend: where secrets are kept under a reference scheme of its own. Credentials go in its config only as secret references.',
      )
      .argument('<name>', 'the backend name (unique)')
      .requiredOption('--scheme <scheme>', 'the reference scheme its secrets are written with, e.g. lab for lab://… (unique)')
      .option('--type <type>', 'builtin or vault (the daemon says which this build serves: svc secret-backends types)', 'builtin')
      .option(
        '--config <json>',
        'connection settings: a JSON object, @FILE to read it from a file, or - for stdin; a credential as a secret reference, never a value (builtin takes none)',
      )
      .option('--default', 'make it the default backend, where new secrets go unless they name one'),
  );
}

export const invoke: Invoke = async ({ positionals, raw, ctx }) => {
  const config = await jsonObjectFlag(raw, 'config', '--config', ctx);
  const body = {
    name: positionals[0]!,
    // The daemon checks the type (422): it alone knows which types this build serves.
    type: flag.string(raw, 'type') as CreateBackendBody['type'],
    scheme: flag.string(raw, 'scheme')!,
    ...(config === undefined ? {} : { config }),
    ...(raw.default === true ? { is_default: true } : {}),
  };
  await runSecretBackendsCreate({ body, json: flag.json(raw) }, ctx);
};

/** `POST /settings/secrets-backends`: the new backend's id on stdout, `--json` the backend. */
export async function runSecretBackendsCreate(options: SecretBackendsCreateOptions, ctx: Context): Promise<void> {
  const created = (await ctx.apiClient().request({ method: 'POST', path: BACKENDS_PATH, body: options.body })).body as SecretBackendView;
  if (options.json) return printJson(ctx.io, created);
  ctx.io.err(`Added secret backend ${created.name} (${created.scheme}://); svc secret-backends test ${created.id} checks it.\n`);
  ctx.io.out(`${created.id}\n`);
}
