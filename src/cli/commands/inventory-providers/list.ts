import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printTable } from '../../runtime/table.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { PROVIDER_COLUMNS, type ProviderList } from './types.js';

export interface InventoryProvidersListOptions {
  readonly type: string | undefined;
  readonly includeDeleted: boolean;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description("The organization's inventory providers, by provider id.")
      .option('--type <type>', 'only this type (netbox, nautobot, static)')
      .option('--include-deleted', 'also soft-deleted ones'),
  );
}

export const invoke: Invoke = ({ raw, ctx }) => runInventoryProvidersList(parseInventoryProvidersListOptions(raw), ctx);

export function parseInventoryProvidersListOptions(raw: Record<string, unknown>): InventoryProvidersListOptions {
  return { type: flag.string(raw, 'type'), includeDeleted: raw.includeDeleted === true, json: flag.json(raw) };
}

/** `GET /inventory/providers` (up to 500). `--json`: the daemon's page. */
export async function runInventoryProvidersList(options: InventoryProvidersListOptions, ctx: Context): Promise<void> {
  const query: Record<string, string> = { limit: '500' };
  if (options.type !== undefined) query.type = options.type;
  if (options.includeDeleted) query.include_deleted = 'true';
  const page = (await ctx.apiClient().request({ method: 'GET', path: '/inventory/providers', query })).body as ProviderList;
  if (options.json) return printJson(ctx.io, page);
  printTable(ctx.io, page.items, PROVIDER_COLUMNS, 'No inventory providers.');
}
