import type { Command } from 'commander';
import type { ApiClient } from '../../http/client.js';
import { idByName } from '../named.js';

/** SCHEDULE, the argument of the verbs that act on one schedule: read by `scheduleId`. */
export const scheduleArgument = (command: Command) => command.argument('<schedule>', 'schedule id, or its name');

/**
 * The schedule routes take an id; people type names. A UUID is taken as is; anything else must be the
 * exact name of one live schedule of the organization (names are labels, not unique: two matches are
 * refused with their ids, exit 2; none is exit 3).
 */
export function scheduleId(client: ApiClient, ref: string): Promise<string> {
  return idByName(client, '/schedules', 'schedule', ref, 'in this organization');
}
