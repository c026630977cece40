import type { Command } from 'commander';
import type { UpdateDestinationBody } from '../../../shared/api/notifications.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { clearable, enabledOf, enc, exclusive, flag, jsonFlag, someChange } from '../shared.js';
import { jsonObjectFlag } from '../json-object-flag.js';
import type { Invoke } from '../verb.js';
import { destinationFieldFlags, destinationId, eventsFlag } from './fields.js';
import type { Destination } from './types.js';

export interface DestinationsUpdateOptions {
  readonly destination: string;
  readonly changes: UpdateDestinationBody;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    destinationFieldFlags(
      command
        .description(
          "Change a notification destination's name, settings, flow defaults or switch; its kind stays. An empty --description clears it.",
        )
        .argument('<destination>', 'destination id, or its name')
        .option('--name <name>', 'a new name'),
    )
      .option('--clear-events', 'no flow defaults: flows send here only by their own subscriptions')
      .option('--enable', 'switch it on')
      .option('--disable', 'switch it off: nothing is sent to it'),
  );
}

export const invoke: Invoke = async ({ positionals, raw, ctx }) =>
  runDestinationsUpdate({ destination: positionals[0]!, changes: await destinationChanges(raw, ctx), json: flag.json(raw) }, ctx);

/** The fields the flags change; none at all, or contradicting flags, is a usage error (exit 2). */
export async function destinationChanges(raw: Record<string, unknown>, ctx: Context): Promise<UpdateDestinationBody> {
  exclusive(raw, ['event', '--event'], ['clearEvents', '--clear-events']);
  const events = eventsFlag(raw, undefined);
  const config = await jsonObjectFlag(raw, 'config', '--config', ctx);
  const description = clearable(raw, 'description');
  const changes: UpdateDestinationBody = {
    name: flag.string(raw, 'name'),
    description,
    config,
    enabled: enabledOf(raw),
    default_events: raw.clearEvents === true ? [] : (events as UpdateDestinationBody['default_events']),
  };
  return someChange(changes, '--name, --description, --config, --event, --clear-events, --enable or --disable');
}

/** `PATCH /notifications/destinations/{destination_id}`: the destination's id on stdout; `--json` the destination. */
export async function runDestinationsUpdate(options: DestinationsUpdateOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await destinationId(client, options.destination);
  const path = `/notifications/destinations/${enc(id)}`;
  const updated = (await client.request({ method: 'PATCH', path, body: options.changes })).body as Destination;
  if (options.json) return printJson(ctx.io, updated);
  ctx.io.err(`Updated destination ${updated.name}.\n`);
  ctx.io.out(`${updated.id}\n`);
}
