import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printRecord } from '../../runtime/table.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { orgFields, type Org } from './types.js';

export interface OrgsGetOptions {
  readonly org: string;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(command.description('One organization.').argument('<org>', 'id or slug'));
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runOrgsGet(parseOrgsGetOptions(positionals[0]!, raw), ctx);

export function parseOrgsGetOptions(org: string, raw: Record<string, unknown>): OrgsGetOptions {
  return { org, json: flag.json(raw) };
}

/** `GET /orgs/{org_ref}`. */
export async function runOrgsGet(options: OrgsGetOptions, ctx: Context): Promise<void> {
  const org = (await ctx.apiClient().request({ method: 'GET', path: `/orgs/${enc(options.org)}` })).body as Org;
  if (options.json) printJson(ctx.io, org);
  else printRecord(ctx.io, orgFields(org));
}
