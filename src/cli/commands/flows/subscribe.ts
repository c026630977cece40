import type { Command } from 'commander';
import { NOTIFICATION_EVENTS } from '../../../shared/api/notifications.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printRecord } from '../../runtime/table.js';
import { flowId } from '../runs/resolve.js';
import { collect, enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { destinationId, eventsFlag } from '../notifications/fields.js';
import type { Subscription } from '../notifications/types.js';

export interface FlowsSubscribeOptions {
  /** A flow id or name. */
  readonly flow: string;
  readonly destination: string;
  readonly events: readonly string[];
  readonly disabled: boolean;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description(
        "Send a flow's run and approval events to a notification destination (replaces the destination's flow defaults for this flow).",
      )
      .argument('<flow>', 'flow id, or its name')
      .argument('<destination>', 'destination id, or its name')
      .option('--event <event>', `an event to send, repeatable (${NOTIFICATION_EVENTS.join(', ')})`, collect)
      .option('--disabled', "mute the destination's defaults for this flow instead"),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runFlowsSubscribe(parseFlowsSubscribeOptions(positionals[0]!, positionals[1]!, raw), ctx);

export function parseFlowsSubscribeOptions(flow: string, destination: string, raw: Record<string, unknown>): FlowsSubscribeOptions {
  const events = eventsFlag(raw, ['run.succeeded', 'run.failed']);
  return { flow, destination, events, disabled: raw.disabled === true, json: flag.json(raw) };
}

/** `POST /flows/{flow_id}/notifications/subscriptions` (events: run.succeeded and run.failed unless given). */
export async function runFlowsSubscribe(options: FlowsSubscribeOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await flowId(client, options.flow);
  const created = (
    await client.request({
      method: 'POST',
      path: `/flows/${enc(id)}/notifications/subscriptions`,
      body: { destination_id: await destinationId(client, options.destination), events: options.events, enabled: !options.disabled },
    })
  ).body as Subscription;
  if (options.json) return printJson(ctx.io, created);
  printRecord(ctx.io, [
    ['id', created.id],
    ['flow_id', created.flow_id],
    ['destination', `${created.destination_name} (${created.destination_id}, ${created.destination_kind})`],
    ['events', created.events.join(', ')],
    ['enabled', created.enabled ? 'yes' : 'no'],
  ]);
}
