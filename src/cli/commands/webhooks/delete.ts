import type { Command } from 'commander';
import { confirmDestructive } from '../../runtime/confirm.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { enc, flag, jsonFlag, yesFlag } from '../shared.js';
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

/** `DELETE /webhooks/{webhook_id}`: a soft delete (its trigger answers 404 until restored). `--json`: `{id, deleted: true}`. */
export async function runWebhooksDelete(options: WebhooksDeleteOptions, ctx: Context): Promise<void> {
  await confirmDestructive(ctx.io, `Delete webhook endpoint ${options.endpoint} (its trigger stops answering; restorable)`, options.yes);
  const client = ctx.apiClient();
  const id = await endpointId(client, options.endpoint);
  await client.request({ method: 'DELETE', path: `/webhooks/${enc(id)}` });
  if (options.json) printJson(ctx.io, { id, deleted: true });
  else ctx.io.err(`Deleted webhook endpoint ${id}; svc webhooks restore ${id} brings it back.\n`);
}
