import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { flag, jsonFlag, yesFlag } from '../shared.js';
import { runSoftDelete, type SoftDeleted } from '../soft-delete.js';
import type { Invoke } from '../verb.js';
import { endpointArgument, endpointId } from './resolve.js';

export interface WebhooksDeleteOptions {
  readonly endpoint: string;
  readonly yes: boolean;
  readonly json: boolean;
}

export function define(command: Command): void {
  yesFlag(jsonFlag(endpointArgument(command.description('Soft-delete an endpoint (its trigger answers 404; restorable).'))));
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runWebhooksDelete(parseWebhooksDeleteOptions(positionals[0]!, raw), ctx);

export function parseWebhooksDeleteOptions(endpoint: string, raw: Record<string, unknown>): WebhooksDeleteOptions {
  return { endpoint, yes: flag.yes(raw), json: flag.json(raw) };
}

const DELETED: SoftDeleted = {
  noun: 'webhook endpoint',
  collection: '/webhooks',
  idOf: endpointId,
  effect: 'its trigger stops answering',
  restoreHint: (id) => `svc webhooks restore ${id}`,
};

/** `DELETE /webhooks/{webhook_id}`: a soft delete (its trigger answers 404 until restored). `--json`: `{id, deleted: true}`. */
export function runWebhooksDelete(options: WebhooksDeleteOptions, ctx: Context): Promise<void> {
  return runSoftDelete(DELETED, { ref: options.endpoint, yes: options.yes, json: options.json }, ctx);
}
