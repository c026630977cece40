import type { Command } from 'commander';
import { CliError, usageError } from '../../errors.js';
import { resolveServer } from '../../auth/session.js';
import type { ApiClient } from '../../http/client.js';
import type { Context } from '../../runtime/context.js';
import type { EndpointListItem } from './types.js';
import { isUuid } from '../../../shared/ids.js';

/** ENDPOINT, the argument of the verbs that act on one endpoint: read by `endpointId`. */
export const endpointArgument = (command: Command) => command.argument('<endpoint>', 'endpoint id, or its name');

/** Which endpoints a name may match: live ones for most verbs, deleted ones for restore, any for purge. */
export type EndpointState = 'live' | 'deleted' | 'any';

/**
 * The list route's items. The spec answers a bare array; a page object (`{items}`) is read too, so a
 * change of the list's shape on the daemon does not break the CLI.
 */
export function itemsOf<T>(body: unknown): T[] {
  if (Array.isArray(body)) return body as T[];
  const items = (body as { items?: unknown } | null)?.items;
  return Array.isArray(items) ? (items as T[]) : [];
}

/**
 * The endpoint routes take an id; people type names. A UUID is taken as is; anything else must be the
 * exact name of one endpoint of the organization in the given state (names are labels, not unique, so
 * two matches are refused with their ids rather than guessed between).
 */
export async function endpointId(client: ApiClient, ref: string, state: EndpointState = 'live'): Promise<string> {
  if (isUuid(ref)) return ref;
  const query: Record<string, string> = state === 'live' ? {} : { include_deleted: 'true' };
  const all = itemsOf<EndpointListItem>((await client.request({ method: 'GET', path: '/webhooks', query })).body);
  const matches = all.filter((e) => e.name === ref && (state === 'any' || (state === 'deleted') === (e.deleted_at !== null)));
  if (matches.length === 1) return matches[0]!.id;
  const where = state === 'deleted' ? 'deleted webhook endpoint' : 'webhook endpoint';
  if (matches.length === 0) throw new CliError('not_found', `no ${where} named "${ref}" in this organization`);
  throw usageError(
    `${matches.length} webhook endpoints are named "${ref}": ${matches.map((e) => e.id).join(', ')}`,
    'pass the id instead of the name',
  );
}

/** Where senders post: the server as svc reaches it (a proxy prefix included) plus the trigger path. */
export async function triggerUrl(ctx: Context, triggerPath: string): Promise<string> {
  return `${await resolveServer(ctx)}${triggerPath}`;
}
