import type { Command } from 'commander';
import type { UpdateProviderBody } from '../../../shared/api/inventory-providers.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { jsonObjectFlag } from '../json-object-flag.js';
import { clearable, enabledOf, flag, jsonFlag, someChange } from '../shared.js';
import type { Invoke } from '../verb.js';
import { providerPath, type Provider } from './types.js';

export interface InventoryProvidersUpdateOptions {
  readonly providerId: string;
  readonly changes: UpdateProviderBody;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description("Change a provider's configuration, credential, description or switch; type and name make its id and stay.")
      .argument('<provider_id>', 'the provider id (<type>:<name>[:<org_id>])')
      .option('--config <json>', "the plugin's configuration, replaced whole: a JSON object, @FILE, or - for stdin")
      .option('--credential <ref>', 'a secret reference to the API token; empty removes it')
      .option('--description <text>', 'what it is for; empty clears it')
      .option('--enable', 'switch it on')
      .option('--disable', 'switch it off: it does not sync'),
  );
}

export const invoke: Invoke = async ({ positionals, raw, ctx }) =>
  runInventoryProvidersUpdate({ providerId: positionals[0]!, changes: await providerChanges(raw, ctx), json: flag.json(raw) }, ctx);

/** The fields the flags change; none at all, or --enable with --disable, is a usage error (exit 2). */
export async function providerChanges(raw: Record<string, unknown>, ctx: Context): Promise<UpdateProviderBody> {
  const config = await jsonObjectFlag(raw, 'config', '--config', ctx);
  const credential = clearable(raw, 'credential');
  const description = clearable(raw, 'description');
  const changes: UpdateProviderBody = { config, credential_ref: credential, description, enabled: enabledOf(raw) };
  return someChange(changes, '--config, --credential, --description, --enable or --disable');
}

/** `PATCH /inventory/providers/{provider_id}`: the provider id on stdout, `--json` the provider. */
export async function runInventoryProvidersUpdate(options: InventoryProvidersUpdateOptions, ctx: Context): Promise<void> {
  const path = providerPath(options.providerId);
  const updated = (await ctx.apiClient().request({ method: 'PATCH', path, body: options.changes })).body as Provider;
  if (options.json) return printJson(ctx.io, updated);
  ctx.io.err(`Updated provider ${updated.provider_id}.\n`);
  ctx.io.out(`${updated.provider_id}\n`);
}
