import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { siteId } from '../runs/resolve.js';
import { enc, flag, jsonFlag, someChange } from '../shared.js';
import type { Invoke } from '../verb.js';
import { siteBody, siteFieldFlags, siteFields, type SiteFields } from './fields.js';
import type { Site } from './types.js';

export interface SitesUpdateOptions {
  readonly site: string;
  /** The PATCH body: only what was given. */
  readonly changes: SiteFields;
  readonly json: boolean;
}

/** SITE, the argument of the verbs that act on one site. */
export const siteArgument = (command: Command) => command.argument('<site>', 'site name, or its id');

export function define(command: Command): void {
  jsonFlag(
    siteFieldFlags(siteArgument(command.description('Change a site: only the fields given.')).option('--name <name>', 'a new name')),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runSitesUpdate(parseSitesUpdateOptions(positionals[0]!, raw), ctx);

export function parseSitesUpdateOptions(site: string, raw: Record<string, unknown>): SitesUpdateOptions {
  const changes = someChange(siteFields(raw), '--name, --description, --parent, --address, --tag or --clear-tags');
  return { site, changes, json: flag.json(raw) };
}

/** `PATCH /sites/{site_id}` with only the fields given. */
export async function runSitesUpdate(options: SitesUpdateOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await siteId(client, options.site);
  const body = await siteBody(client, options.changes);
  const site = (await client.request({ method: 'PATCH', path: `/sites/${enc(id)}`, body })).body as Site;
  if (options.json) return printJson(ctx.io, site);
  ctx.io.err(`Updated site ${site.name} (${site.id}): ${Object.keys(options.changes).sort().join(', ')}.\n`);
}
