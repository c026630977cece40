import type { Command } from 'commander';
import { usageError } from '../../errors.js';
import type { ApiClient } from '../../http/client.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printRecord } from '../../runtime/table.js';
import { collect, enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { secretByName } from './resolve.js';
import { secretFields, type SecretDetailView, type SecretProviderView } from './types.js';
import { readValues, secretKey, type ValueSource, valueSources } from './values.js';

export interface SecretsSetOptions {
  readonly name: string;
  readonly sources: readonly ValueSource[];
  readonly removeKeys: readonly string[];
  readonly description: string | undefined;
  /** Only for a new secret: fixed after creation. */
  readonly backend: string | undefined;
  readonly path: string | undefined;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description(
        "Create the organization's secret NAME, or change its keys (the others are kept). Values come from the environment, files or stdin, never the command line.",
      )
      .argument('<name>', 'secret name (letters, digits, . _ / -)')
      .option('--from-env <key=variable>', "set KEY to environment variable VARIABLE's value (repeatable)", collect)
      .option('--from-file <key=path>', "set KEY to a file's content, as it is (repeatable)", collect)
      .option('--from-stdin <key>', 'set KEY to what stdin holds, less one final newline')
      .option('--remove-key <key>', 'remove KEY from the secret (repeatable)', collect)
      .option('--description <text>', 'what it is for')
      .option('--backend <backend>', 'a new secret only: the backend keeping it, by name or id (default: the default backend)')
      .option('--path <path>', "a new secret only: its folder under the organization's prefix (default: the name)"),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runSecretsSet(parseSecretsSetOptions(positionals[0]!, raw), ctx);

export function parseSecretsSetOptions(name: string, raw: Record<string, unknown>): SecretsSetOptions {
  const sources = valueSources(flag.strings(raw, 'fromEnv'), flag.strings(raw, 'fromFile'), flag.string(raw, 'fromStdin'));
  const removeKeys = flag.strings(raw, 'removeKey').map((key) => secretKey(key, '--remove-key'));
  const both = removeKeys.find((key) => sources.some((s) => s.key === key));
  if (both !== undefined) throw usageError(`key "${both}" is both set and removed`);
  return {
    name,
    sources,
    removeKeys,
    description: typeof raw.description === 'string' ? raw.description : undefined,
    backend: flag.string(raw, 'backend'),
    path: flag.string(raw, 'path'),
    json: flag.json(raw),
  };
}

/** `--backend` as `POST /secrets` takes it: the id of the backend of that id or name (`GET /secrets/providers`). */
async function backendId(client: ApiClient, ref: string): Promise<string> {
  const providers = (await client.request({ method: 'GET', path: '/secrets/providers' })).body as { items: SecretProviderView[] };
  const found = providers.items.find((p) => p.id === ref) ?? providers.items.find((p) => p.name === ref);
  if (!found)
    throw usageError(`no secret backend "${ref}" serves this organization`, `one of: ${providers.items.map((p) => p.name).join(', ')}`);
  return found.id;
}

/**
 * `PATCH /secrets/{id}` (a merge: keys not named are kept) when the organization has a secret NAME,
 * else `POST /secrets` (without values, the new secret adopts the folder already at its path). Every
 * flag is checked and every value read before anything is written.
 */
export async function runSecretsSet(options: SecretsSetOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const existing = await secretByName(client, options.name);
  if (existing && (options.backend !== undefined || options.path !== undefined))
    throw usageError(
      `secret ${options.name} exists: its backend and path are fixed`,
      'duplicate it under a new name to move it (POST /secrets/{id}/duplicate)',
    );
  if (!existing && options.removeKeys.length > 0) throw usageError(`secret ${options.name} does not exist: there is no key to remove`);
  if (existing && options.sources.length === 0 && options.removeKeys.length === 0 && options.description === undefined)
    throw usageError('nothing to change', 'pass --from-env, --from-file, --from-stdin, --remove-key or --description');
  const values = await readValues(options.sources, ctx.env, ctx.io);
  const hasValues = options.sources.length > 0;
  const change = {
    ...(options.description !== undefined ? { description: options.description } : {}),
    ...(hasValues ? { values } : {}),
  };
  const secret = existing
    ? await patch(client, existing.id, { ...change, ...(options.removeKeys.length > 0 ? { remove_keys: options.removeKeys } : {}) })
    : await create(client, {
        name: options.name,
        ...change,
        ...(options.backend !== undefined ? { backend_id: await backendId(client, options.backend) } : {}),
        ...(options.path !== undefined ? { path: options.path } : {}),
      });
  if (options.json) return printJson(ctx.io, secret);
  ctx.io.err(`${existing ? 'Changed' : hasValues ? 'Created' : 'Adopted'} secret ${secret.name} (${secret.id}).\n`);
  printRecord(ctx.io, secretFields(secret));
}

const patch = async (client: ApiClient, id: string, body: object) =>
  (await client.request({ method: 'PATCH', path: `/secrets/${enc(id)}`, body })).body as SecretDetailView;

const create = async (client: ApiClient, body: object) =>
  (await client.request({ method: 'POST', path: '/secrets', body })).body as SecretDetailView;
