import type { Command } from 'commander';
import { DESTINATION_KINDS } from '../../../shared/api/notifications.js';
import { usageError } from '../../errors.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { flag, jsonFlag } from '../shared.js';
import { jsonObjectFlag } from '../json-object-flag.js';
import type { Invoke } from '../verb.js';
import { destinationFieldFlags, eventsFlag } from './fields.js';
import type { Destination } from './types.js';

export interface DestinationsCreateOptions {
  readonly name: string;
  readonly kind: string;
  readonly config: Record<string, unknown>;
  readonly description: string | undefined;
  readonly events: readonly string[] | undefined;
  readonly disabled: boolean;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    destinationFieldFlags(
      command
        .description('Create a notification destination; credentials go in as secret references, never values.')
        .argument('<name>', 'its name')
        .requiredOption('--kind <kind>', `what receives the messages (${DESTINATION_KINDS.join(', ')})`),
    ).option('--disabled', 'create it switched off'),
  );
}

export const invoke: Invoke = async ({ positionals, raw, ctx }) => {
  const config = await jsonObjectFlag(raw, 'config', '--config', ctx);
  if (config === undefined) throw usageError('a destination needs --config', "its kind's settings: GET /notifications/destination-types");
  return runDestinationsCreate(
    {
      name: positionals[0]!,
      kind: flag.string(raw, 'kind')!,
      config,
      description: flag.string(raw, 'description'),
      events: eventsFlag(raw, undefined),
      disabled: raw.disabled === true,
      json: flag.json(raw),
    },
    ctx,
  );
};

/** `POST /notifications/destinations`. The new destination's id on stdout; `--json` the destination. */
export async function runDestinationsCreate(options: DestinationsCreateOptions, ctx: Context): Promise<void> {
  const body = {
    name: options.name,
    kind: options.kind,
    config: options.config,
    enabled: !options.disabled,
    ...(options.description === undefined ? {} : { description: options.description }),
    ...(options.events === undefined ? {} : { default_events: options.events }),
  };
  const created = (await ctx.apiClient().request({ method: 'POST', path: '/notifications/destinations', body })).body as Destination;
  if (options.json) return printJson(ctx.io, created);
  ctx.io.err(`Created ${created.kind} destination ${created.name}.\n`);
  ctx.io.out(`${created.id}\n`);
}
