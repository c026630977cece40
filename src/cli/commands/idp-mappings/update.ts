import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { enc, flag, jsonFlag, orgOf, roleOf, ROLES_HELP, someChange } from '../shared.js';
import type { Invoke } from '../verb.js';
import { activeFlag, type Mapping } from './types.js';

export interface MappingsUpdateOptions {
  readonly org: string;
  readonly id: string;
  readonly changes: { role?: string; is_active?: boolean };
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(command.description("Change a mapping's role or (in)activate it.").argument('<id>', 'mapping id'))
    .option('--role <role>', ROLES_HELP)
    .option('--active', 'activate')
    .option('--no-active', 'deactivate');
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runMappingsUpdate(parseMappingsUpdateOptions(positionals[0]!, raw), ctx);

export function parseMappingsUpdateOptions(id: string, raw: Record<string, unknown>): MappingsUpdateOptions {
  const changes: MappingsUpdateOptions['changes'] = {};
  const role = roleOf(flag.string(raw, 'role'), '--role');
  if (role !== undefined) changes.role = role;
  const active = activeFlag(raw);
  if (active !== undefined) changes.is_active = active;
  someChange(changes, '--role ROLE and/or --active/--no-active (claim and value are immutable)');
  return { org: orgOf(raw), id, changes, json: flag.json(raw) };
}

/** `PATCH /orgs/{org_ref}/idp-mappings/{mapping_id}`. */
export async function runMappingsUpdate(options: MappingsUpdateOptions, ctx: Context): Promise<void> {
  const mapping = (
    await ctx.apiClient().request({
      method: 'PATCH',
      path: `/orgs/${enc(options.org)}/idp-mappings/${enc(options.id)}`,
      body: options.changes,
    })
  ).body as Mapping;
  if (options.json) printJson(ctx.io, mapping);
  else ctx.io.err(`Updated mapping ${mapping.id}: ${mapping.role}, ${mapping.is_active ? 'active' : 'inactive'}.\n`);
}
