import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printTable } from '../../runtime/table.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { SYNC_COLUMNS, providerPath, type SyncRun } from './types.js';

export interface InventoryProvidersSyncOptions {
  readonly providerId: string;
  readonly incremental: boolean;
  readonly noResume: boolean;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description('Sync a provider now and wait for it: creates, updates, restores and (full mode) marks stale what it imported.')
      .argument('<provider_id>', 'the provider id (<type>:<name>[:<org_id>])')
      .option('--incremental', 'read only what changed since the last successful sync')
      .option('--no-resume', 'start over rather than continue a failed sync'),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runInventoryProvidersSync(parseInventoryProvidersSyncOptions(positionals[0]!, raw), ctx);

export function parseInventoryProvidersSyncOptions(providerId: string, raw: Record<string, unknown>): InventoryProvidersSyncOptions {
  return { providerId, incremental: raw.incremental === true, noResume: raw.resume === false, json: flag.json(raw) };
}

/** `POST /inventory/providers/{provider_id}/sync`; a failed sync is the daemon's 502, printed as an error. */
export async function runInventoryProvidersSync(options: InventoryProvidersSyncOptions, ctx: Context): Promise<void> {
  const body: Record<string, unknown> = { mode: options.incremental ? 'incremental' : 'full' };
  if (options.noResume) body.resume = false;
  const run = (await ctx.apiClient().request({ method: 'POST', path: providerPath(options.providerId, '/sync'), body })).body as SyncRun;
  if (options.json) return printJson(ctx.io, run);
  printTable(ctx.io, [run], SYNC_COLUMNS, '');
}
