import type { Command } from 'commander';
import { NOTIFICATION_EVENTS } from '../../../shared/api/notifications.js';
import { usageError } from '../../errors.js';
import type { ApiClient } from '../../http/client.js';
import { idByName } from '../named.js';
import { collect, flag } from '../shared.js';

/** DESTINATION as the verbs take it: an id, or the exact name of one of the organization's destinations. */
export function destinationId(client: ApiClient, ref: string): Promise<string> {
  return idByName(client, '/notifications/destinations', 'destination', ref, 'in this organization');
}

/** `--event` (repeatable), each one of NOTIFICATION_EVENTS (else exit 2); `fallback` when none is given. */
export function eventsFlag<Fallback extends readonly string[] | undefined>(
  raw: Record<string, unknown>,
  fallback: Fallback,
): string[] | Fallback {
  const events = flag.strings(raw, 'event');
  for (const event of events)
    if (!(NOTIFICATION_EVENTS as readonly string[]).includes(event))
      throw usageError(`--event ${event}: not an event (${NOTIFICATION_EVENTS.join(', ')})`);
  return events.length > 0 ? events : fallback;
}

/** The flags a destination's create and update share. */
export function destinationFieldFlags(command: Command): Command {
  return command
    .option(
      '--config <json>',
      "the kind's settings: a JSON object, @FILE to read it from a file, or - for stdin (an update replaces them whole)",
    )
    .option('--description <text>', 'what it is for')
    .option(
      '--event <event>',
      `a flow default: an event every flow sends here unless it has its own subscription, repeatable (${NOTIFICATION_EVENTS.join(', ')})`,
      collect,
    );
}
