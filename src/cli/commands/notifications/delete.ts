import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { flag, jsonFlag, yesFlag } from '../shared.js';
import { runSoftDelete, type SoftDeleted } from '../soft-delete.js';
import type { Invoke } from '../verb.js';
import { destinationId } from './fields.js';

export interface DestinationsDeleteOptions {
  readonly destination: string;
  readonly yes: boolean;
  readonly json: boolean;
}

export function define(command: Command): void {
  yesFlag(
    jsonFlag(
      command
        .description('Soft-delete a notification destination: nothing more is sent to it (restorable through the API).')
        .argument('<destination>', 'destination id, or its name'),
    ),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runDestinationsDelete({ destination: positionals[0]!, yes: flag.yes(raw), json: flag.json(raw) }, ctx);

const DELETED: SoftDeleted = {
  noun: 'notification destination',
  collection: '/notifications/destinations',
  idOf: destinationId,
  effect: 'nothing more is sent to it, and its messages not yet sent are given up',
};

/** `DELETE /notifications/destinations/{destination_id}` (soft). `--json`: `{id, deleted: true}`. */
export function runDestinationsDelete(options: DestinationsDeleteOptions, ctx: Context): Promise<void> {
  return runSoftDelete(DELETED, { ref: options.destination, yes: options.yes, json: options.json }, ctx);
}
