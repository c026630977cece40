import type { Command } from 'commander';
import { confirmDestructive } from '../../runtime/confirm.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { siteId } from '../runs/resolve.js';
import { enc, flag, jsonFlag, yesFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { siteArgument } from './update.js';

export interface SitesDeleteOptions {
  readonly site: string;
  readonly yes: boolean;
  readonly json: boolean;
}

export function define(command: Command): void {
  yesFlag(jsonFlag(siteArgument(command.description('Soft-delete a site (restorable through the API).'))));
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runSitesDelete({ site: positionals[0]!, yes: flag.yes(raw), json: flag.json(raw) }, ctx);

/** `DELETE /sites/{site_id}` (soft). `--json`: `{id, deleted: true}`. */
export async function runSitesDelete(options: SitesDeleteOptions, ctx: Context): Promise<void> {
  await confirmDestructive(ctx.io, `Delete site ${options.site} (restorable)`, options.yes);
  const client = ctx.apiClient();
  const id = await siteId(client, options.site);
  await client.request({ method: 'DELETE', path: `/sites/${enc(id)}` });
  if (options.json) printJson(ctx.io, { id, deleted: true });
  else ctx.io.err(`Deleted site ${id}; POST /sites/${id}/restore brings it back.\n`);
}
