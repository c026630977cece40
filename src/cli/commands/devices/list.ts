import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printPage } from '../../runtime/table.js';
import { positiveNumber } from '../runs/inputs.js';
import { siteId } from '../runs/resolve.js';
import { collect, flag, jsonFlag, oneOf } from '../shared.js';
import type { Invoke } from '../verb.js';
import { DEVICE_COLUMNS, type DevicePage } from './types.js';

export interface DevicesListOptions {
  readonly q: string | undefined;
  /** Site names or ids; made ids before the search. */
  readonly sites: readonly string[];
  readonly platforms: readonly string[];
  readonly roles: readonly string[];
  readonly tags: readonly string[];
  readonly maintenance: boolean | undefined;
  readonly source: 'local' | 'provider' | undefined;
  readonly scope: 'all' | 'own' | 'shared' | undefined;
  readonly sort: string | undefined;
  readonly limit: number | undefined;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description(
        'Live devices of the organization and the shared one, searched: a repeated --site, --platform or --role is an alternative, every --tag is required.',
      )
      .option('--q <text>', 'only those whose name, hostname, serial or a tag contains this')
      .option('--site <site>', 'on this site, by name or id (repeatable)', collect)
      .option('--platform <platform>', 'of this platform (repeatable)', collect)
      .option('--role <role>', 'of this role (repeatable)', collect)
      .option('--tag <tag>', 'carrying this tag, its own or a local one (repeatable: all of them)', collect)
      .option('--maintenance <on|off>', 'only those whose local maintenance override is set so')
      .option('--source <source>', 'local (no provider) or provider')
      .option('--scope <scope>', "all (default), own (this organization's) or shared")
      .option('--sort <field>', 'name (default), hostname, platform, created_at or updated_at; -FIELD descending')
      .option('--limit <n>', 'at most this many (1-500, default 50)'),
  );
}

export const invoke: Invoke = ({ raw, ctx }) => runDevicesList(parseDevicesListOptions(raw), ctx);

export function parseDevicesListOptions(raw: Record<string, unknown>): DevicesListOptions {
  const maintenance = oneOf(flag.string(raw, 'maintenance'), ['on', 'off'], '--maintenance');
  return {
    q: flag.string(raw, 'q'),
    sites: flag.strings(raw, 'site'),
    platforms: flag.strings(raw, 'platform'),
    roles: flag.strings(raw, 'role'),
    tags: flag.strings(raw, 'tag'),
    maintenance: maintenance === undefined ? undefined : maintenance === 'on',
    source: oneOf(flag.string(raw, 'source'), ['local', 'provider'], '--source'),
    scope: oneOf(flag.string(raw, 'scope'), ['all', 'own', 'shared'], '--scope'),
    sort: flag.string(raw, 'sort'),
    limit: positiveNumber(raw, 'limit', '--limit'),
    json: flag.json(raw),
  };
}

/** `GET /devices/search` (live devices only). `--json`: the daemon's page `{items, total, limit, offset}`. */
export async function runDevicesList(options: DevicesListOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const query: Record<string, string | string[]> = {};
  if (options.q !== undefined) query.q = options.q;
  if (options.sites.length > 0) query.site_id = await Promise.all(options.sites.map((site) => siteId(client, site)));
  if (options.platforms.length > 0) query.platform = [...options.platforms];
  if (options.roles.length > 0) query.role = [...options.roles];
  if (options.tags.length > 0) query.tag = [...options.tags];
  if (options.maintenance !== undefined) query.maintenance = String(options.maintenance);
  if (options.source !== undefined) query.source = options.source;
  if (options.scope !== undefined) query.scope = options.scope;
  if (options.sort !== undefined) query.sort = options.sort;
  if (options.limit !== undefined) query.limit = String(options.limit);
  const page = (await client.request({ method: 'GET', path: '/devices/search', query })).body as DevicePage;
  if (options.json) return printJson(ctx.io, page);
  printPage(ctx.io, page, DEVICE_COLUMNS, 'No devices.');
}
