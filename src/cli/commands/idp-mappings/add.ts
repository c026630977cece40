import type { Command } from 'commander';
import { usageError } from '../../errors.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { enc, flag, jsonFlag, orgOf, roleOf, ROLES_HELP } from '../shared.js';
import type { Invoke } from '../verb.js';
import type { Mapping } from './types.js';

export interface MappingsAddOptions {
  readonly org: string;
  readonly claim: string;
  /** Compared exactly at login: not trimmed, not case-folded. */
  readonly value: string;
  readonly role: string;
  readonly active: boolean;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(command.description('Map a claim value to a role in the organization.'))
    .option('--claim <claim>', 'the claim (must be the configured group claim)', 'groups')
    .option('--value <value>', 'the claim value, exactly as the provider emits it (e.g. /Network-Ops)')
    .option('--role <role>', ROLES_HELP)
    .option('--no-active', 'create it inactive');
}

export const invoke: Invoke = ({ raw, ctx }) => runMappingsAdd(parseMappingsAddOptions(raw), ctx);

export function parseMappingsAddOptions(raw: Record<string, unknown>): MappingsAddOptions {
  const org = orgOf(raw);
  // Not flag.string: a value is taken exactly as given.
  const value = typeof raw.value === 'string' ? raw.value : undefined;
  if (value === undefined || value === '')
    throw usageError('svc idp-mappings add needs the claim value', 'pass --value VALUE (e.g. --value /Network-Ops)');
  const role = roleOf(flag.string(raw, 'role'), '--role');
  if (role === undefined) throw usageError('svc idp-mappings add needs a role', 'pass --role viewer|auditor|approver|operator|admin');
  return { org, claim: flag.string(raw, 'claim') ?? 'groups', value, role, active: raw.active !== false, json: flag.json(raw) };
}

/** `POST /orgs/{org_ref}/idp-mappings`, with `X-Org-Id` naming the same organization (the API asks for both). */
export async function runMappingsAdd(options: MappingsAddOptions, ctx: Context): Promise<void> {
  const mapping = (
    await ctx.apiClient().request({
      method: 'POST',
      path: `/orgs/${enc(options.org)}/idp-mappings`,
      headers: { 'x-org-id': options.org },
      body: { claim: options.claim, value: options.value, role: options.role, is_active: options.active },
    })
  ).body as Mapping;
  if (options.json) printJson(ctx.io, mapping);
  else ctx.io.err(`Added mapping ${mapping.id}: ${mapping.claim} "${mapping.value}" -> ${mapping.role} in ${options.org}.\n`);
}
