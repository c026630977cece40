import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printTable } from '../../runtime/table.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { SYNC_COLUMNS, providerPath, type SyncHistory } from './types.js';

export interface InventoryProvidersHistoryOptions {
  readonly providerId: string;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description("A provider's syncs, newest first: mode, status, counts per outcome, the error of a failed page.")
      .argument('<provider_id>', 'the provider id (<type>:<name>[:<org_id>])'),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runInventoryProvidersHistory({ providerId: positionals[0]!, json: flag.json(raw) }, ctx);

/** `GET /inventory/providers/{provider_id}/sync-history` (the newest 50). */
export async function runInventoryProvidersHistory(options: InventoryProvidersHistoryOptions, ctx: Context): Promise<void> {
  const page = (await ctx.apiClient().request({ method: 'GET', path: providerPath(options.providerId, '/sync-history') }))
    .body as SyncHistory;
  if (options.json) return printJson(ctx.io, page);
  printTable(ctx.io, page.items, SYNC_COLUMNS, 'No syncs yet.');
}
