import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { enc, flag, jsonFlag, someChange } from '../shared.js';
import type { Invoke } from '../verb.js';
import type { Org } from './types.js';

export interface OrgsUpdateOptions {
  readonly org: string;
  /** The PATCH body: only what was given. */
  readonly changes: { name?: string; description?: string | null; is_active?: boolean; is_shared?: boolean };
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(command.description('Rename, describe, (de)activate, or mark as the shared organization.').argument('<org>', 'id or slug'))
    .option('--name <name>', 'new display name')
    .option('--description <text>', 'new description ("" clears it)')
    .option('--active', 'reactivate')
    .option('--no-active', 'deactivate')
    .option('--shared', 'make it the shared organization')
    .option('--no-shared', 'take the shared mark off');
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runOrgsUpdate(parseOrgsUpdateOptions(positionals[0]!, raw), ctx);

export function parseOrgsUpdateOptions(org: string, raw: Record<string, unknown>): OrgsUpdateOptions {
  const changes: OrgsUpdateOptions['changes'] = {};
  const name = flag.string(raw, 'name');
  if (name !== undefined) changes.name = name;
  if (typeof raw.description === 'string') changes.description = raw.description === '' ? null : raw.description;
  if (typeof raw.active === 'boolean') changes.is_active = raw.active;
  if (typeof raw.shared === 'boolean') changes.is_shared = raw.shared;
  return { org, changes: someChange(changes, '--name, --description, --active/--no-active or --shared/--no-shared'), json: flag.json(raw) };
}

/** `PATCH /orgs/{org_ref}` (the slug is immutable). */
export async function runOrgsUpdate(options: OrgsUpdateOptions, ctx: Context): Promise<void> {
  const org = (await ctx.apiClient().request({ method: 'PATCH', path: `/orgs/${enc(options.org)}`, body: options.changes })).body as Org;
  if (options.json) printJson(ctx.io, org);
  else ctx.io.err(`Updated organization ${org.slug}.\n`);
}
