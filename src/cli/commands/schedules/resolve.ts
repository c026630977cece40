import type { Command } from 'commander';
import { CliError, usageError } from '../../errors.js';
import type { ApiClient } from '../../http/client.js';
import type { ScheduleList } from './types.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** SCHEDULE, the argument of the verbs that act on one schedule: read by `scheduleId`. */
export const scheduleArgument = (command: Command) => command.argument('<schedule>', 'schedule id, or its name');

/**
 * The schedule routes take an id; people type names. A UUID is taken as is; anything else must be the
 * exact name of one live schedule of the organization (names are labels, not unique: two matches are
 * refused with their ids, exit 2; none is exit 3).
 */
export async function scheduleId(client: ApiClient, ref: string): Promise<string> {
  if (UUID.test(ref)) return ref;
  const page = (await client.request({ method: 'GET', path: '/schedules', query: { q: ref, limit: '500' } })).body as ScheduleList;
  const matches = page.items.filter((s) => s.name === ref);
  if (matches.length === 1) return matches[0]!.id;
  if (matches.length === 0) throw new CliError('not_found', `no schedule named "${ref}" in this organization`);
  throw usageError(
    `${matches.length} schedules are named "${ref}": ${matches.map((s) => s.id).join(', ')}`,
    'pass the id instead of the name',
  );
}
