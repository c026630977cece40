import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { jsonObjectFlag } from '../json-object-flag.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import type { Provider } from './types.js';

export interface InventoryProvidersCreateOptions {
  readonly type: string;
  readonly name: string;
  readonly config: Record<string, unknown> | undefined;
  readonly credentialRef: string | undefined;
  readonly description: string | undefined;
  readonly disabled: boolean;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description('Create an inventory provider (its id is <type>:<name>, with :<org_id> outside the default organization).')
      .argument('<type>', 'netbox, nautobot or static (GET /inventory/plugins)')
      .argument('<name>', 'its name')
      .option('--config <json>', "the plugin's configuration: a JSON object, @FILE to read it from a file, or - for stdin")
      .option('--credential <ref>', 'a secret reference to the API token; its value is never stored')
      .option('--description <text>', 'what it is for')
      .option('--disabled', 'create it switched off: it does not sync'),
  );
}

export const invoke: Invoke = async ({ positionals, raw, ctx }) =>
  runInventoryProvidersCreate(
    {
      type: positionals[0]!,
      name: positionals[1]!,
      config: await jsonObjectFlag(raw, 'config', '--config', ctx),
      credentialRef: flag.string(raw, 'credential'),
      description: flag.string(raw, 'description'),
      disabled: raw.disabled === true,
      json: flag.json(raw),
    },
    ctx,
  );

/** `POST /inventory/providers`: the provider id on stdout, `--json` the provider. */
export async function runInventoryProvidersCreate(options: InventoryProvidersCreateOptions, ctx: Context): Promise<void> {
  const body = {
    type: options.type,
    name: options.name,
    enabled: !options.disabled,
    ...(options.config === undefined ? {} : { config: options.config }),
    ...(options.credentialRef === undefined ? {} : { credential_ref: options.credentialRef }),
    ...(options.description === undefined ? {} : { description: options.description }),
  };
  const created = (await ctx.apiClient().request({ method: 'POST', path: '/inventory/providers', body })).body as Provider;
  if (options.json) return printJson(ctx.io, created);
  ctx.io.err(
    `Created ${created.type} provider ${created.provider_id}; svc inventory-providers sync ${created.provider_id} imports from it.\n`,
  );
  ctx.io.out(`${created.provider_id}\n`);
}
