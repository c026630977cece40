import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { siteId } from '../runs/resolve.js';
import { flag, jsonFlag, yesFlag } from '../shared.js';
import { runSoftDelete, type SoftDeleted } from '../soft-delete.js';
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

const DELETED: SoftDeleted = { noun: 'site', collection: '/sites', idOf: siteId };

/** `DELETE /sites/{site_id}` (soft). `--json`: `{id, deleted: true}`. */
export function runSitesDelete(options: SitesDeleteOptions, ctx: Context): Promise<void> {
  return runSoftDelete(DELETED, { ref: options.site, yes: options.yes, json: options.json }, ctx);
}
