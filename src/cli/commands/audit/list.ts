import type { Command } from 'commander';
import { usageError } from '../../errors.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printTable } from '../../runtime/table.js';
import { positiveNumber } from '../runs/inputs.js';
import { collect, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { AUDIT_COLUMNS, type AuditLogPage } from './types.js';

export interface AuditListOptions {
  /** The route's filters, by their query names. */
  readonly filters: Readonly<Record<string, string>>;
  readonly limit: number | undefined;
  readonly cursor: string | undefined;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description('Audit entries of every organization, newest first, filtered; the next page by --cursor.')
      .option('--event-type <type>', 'only this event type, e.g. secret.updated (repeatable)', collect)
      .option('--actor <who>', "only this actor's (a username or subject)")
      .option('--resource <type[/id]>', 'only entries about this resource type, or this one resource (e.g. flow/<id>)')
      .option('--outcome <outcome>', 'only success, failure, denied, …')
      .option('--org-id <uuid>', "only this organization's")
      .option('--since <time>', 'from this date (UTC) or date-time with an offset, inclusive')
      .option('--until <time>', 'before this date or date-time, exclusive')
      .option('--limit <n>', 'at most this many (1-500, default 50)')
      .option('--cursor <cursor>', 'the page after the one that printed this cursor'),
  );
}

export const invoke: Invoke = ({ raw, ctx }) => runAuditList(parseAuditListOptions(raw), ctx);

export function parseAuditListOptions(raw: Record<string, unknown>): AuditListOptions {
  const filters: Record<string, string> = {};
  const eventTypes = flag.strings(raw, 'eventType');
  if (eventTypes.some((t) => t.includes(','))) throw usageError('--event-type takes one type; repeat it for more');
  if (eventTypes.length > 0) filters.event_type = eventTypes.join(',');
  const resource = flag.string(raw, 'resource');
  if (resource !== undefined) {
    const at = resource.indexOf('/');
    if (at === 0 || at === resource.length - 1) throw usageError(`--resource takes TYPE or TYPE/ID, not "${resource}"`);
    filters.resource_type = at < 0 ? resource : resource.slice(0, at);
    if (at > 0) filters.resource_id = resource.slice(at + 1);
  }
  for (const [key, name] of [
    ['actor', 'actor'],
    ['outcome', 'outcome'],
    ['orgId', 'org_id'],
    ['since', 'since'],
    ['until', 'until'],
  ] as const) {
    const value = flag.string(raw, key);
    if (value !== undefined) filters[name] = value;
  }
  return { filters, limit: positiveNumber(raw, 'limit', '--limit'), cursor: flag.string(raw, 'cursor'), json: flag.json(raw) };
}

/**
 * `GET /audit-logs`. `--json`: the daemon's page `{items, next_cursor}`; otherwise a table, and the
 * command for the next page on stderr while there is one.
 */
export async function runAuditList(options: AuditListOptions, ctx: Context): Promise<void> {
  const query: Record<string, string> = { ...options.filters };
  if (options.limit !== undefined) query.limit = String(options.limit);
  if (options.cursor !== undefined) query.cursor = options.cursor;
  const page = (await ctx.apiClient().request({ method: 'GET', path: '/audit-logs', query })).body as AuditLogPage;
  if (options.json) return printJson(ctx.io, page);
  printTable(ctx.io, page.items, AUDIT_COLUMNS, 'No audit entries.');
  if (page.next_cursor !== null) ctx.io.err(`More: the same command with --cursor ${page.next_cursor}\n`);
}
