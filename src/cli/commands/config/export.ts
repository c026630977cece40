import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { collect, flag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { runOperation } from './operation.js';

export interface ConfigExportOptions {
  readonly org: string | undefined;
  readonly families: readonly string[];
}

export function define(command: Command): void {
  command
    .description(
      'Export the configuration as a bundle (YAML on stdout): the platform families, and with --org the organization families. Secrets by name, never values.',
    )
    .option('--family <name>', 'only this family (repeatable; `svc api /config-exchange/resource-families` lists them)', collect);
}

export const invoke: Invoke = ({ raw, ctx }) => runConfigExport(parseConfigExportOptions(raw), ctx);

export function parseConfigExportOptions(raw: Record<string, unknown>): ConfigExportOptions {
  return { org: flag.string(raw, 'org'), families: flag.strings(raw, 'family') };
}

/** `POST /config-exchange/operations {mode: export}`, waited for; the bundle's text on stdout as the daemon made it. */
export async function runConfigExport(options: ConfigExportOptions, ctx: Context): Promise<void> {
  const body: Record<string, unknown> = { mode: 'export' };
  if (options.org) body.org = options.org;
  if (options.families.length > 0) body.families = options.families;
  const operation = await runOperation(ctx, body);
  ctx.io.out(String(operation.result?.yaml ?? ''));
}
