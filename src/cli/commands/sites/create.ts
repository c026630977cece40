import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { siteBody, siteFieldFlags, siteFields, type SiteFields } from './fields.js';
import type { Site } from './types.js';

export interface SitesCreateOptions {
  readonly fields: SiteFields & { name: string };
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(siteFieldFlags(command.description('Create a site of the organization.').argument('<name>', 'its name')));
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runSitesCreate({ fields: { ...siteFields(raw), name: positionals[0]! }, json: flag.json(raw) }, ctx);

/** `POST /sites`. The new site's id on stdout; `--json` the site. */
export async function runSitesCreate(options: SitesCreateOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const body = await siteBody(client, options.fields);
  const site = (await client.request({ method: 'POST', path: '/sites', body })).body as Site;
  if (options.json) return printJson(ctx.io, site);
  ctx.io.err(`Created site ${site.name}.\n`);
  ctx.io.out(`${site.id}\n`);
}
