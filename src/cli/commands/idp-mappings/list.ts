import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printTable } from '../../runtime/table.js';
import { enc, flag, jsonFlag, orgOf } from '../shared.js';
import type { Invoke } from '../verb.js';
import { activeFlag, MAPPING_COLUMNS, type Mapping } from './types.js';

export interface MappingsListOptions {
  readonly org: string;
  readonly active: boolean | undefined;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(command.description("The organization's mappings."))
    .option('--active', 'only active mappings')
    .option('--no-active', 'only inactive mappings');
}

export const invoke: Invoke = ({ raw, ctx }) => runMappingsList(parseMappingsListOptions(raw), ctx);

export function parseMappingsListOptions(raw: Record<string, unknown>): MappingsListOptions {
  return { org: orgOf(raw), active: activeFlag(raw), json: flag.json(raw) };
}

/** `GET /orgs/{org_ref}/idp-mappings[?active=]`. `--json`: `{items}`. */
export async function runMappingsList(options: MappingsListOptions, ctx: Context): Promise<void> {
  const query: Record<string, string> = options.active === undefined ? {} : { active: String(options.active) };
  const body = (await ctx.apiClient().request({ method: 'GET', path: `/orgs/${enc(options.org)}/idp-mappings`, query })).body as {
    items: Mapping[];
  };
  if (options.json) return printJson(ctx.io, body);
  printTable(ctx.io, body.items, MAPPING_COLUMNS, `No IdP mappings in ${options.org}.`);
}
