import type { Command } from 'commander';
import { confirmDestructive } from '../../runtime/confirm.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { enc, flag, jsonFlag, yesFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { endpointArgument, endpointId } from './resolve.js';

export interface WebhooksPurgeOptions {
  /** An id, or the name of one endpoint, live or deleted. */
  readonly endpoint: string;
  readonly yes: boolean;
  readonly json: boolean;
}

export function define(command: Command): void {
  yesFlag(jsonFlag(endpointArgument(command.description('Remove an endpoint for good, with its delivery journal.'))));
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runWebhooksPurge(parseWebhooksPurgeOptions(positionals[0]!, raw), ctx);

export function parseWebhooksPurgeOptions(endpoint: string, raw: Record<string, unknown>): WebhooksPurgeOptions {
  return { endpoint, yes: flag.yes(raw), json: flag.json(raw) };
}

/** `DELETE /webhooks/{webhook_id}/permanent`: gone for good, with its delivery journal. `--json`: `{id, purged: true}`. */
export async function runWebhooksPurge(options: WebhooksPurgeOptions, ctx: Context): Promise<void> {
  await confirmDestructive(
    ctx.io,
    `Permanently remove webhook endpoint ${options.endpoint} and its delivery journal (cannot be undone)`,
    options.yes,
  );
  const client = ctx.apiClient();
  const id = await endpointId(client, options.endpoint, 'any');
  await client.request({ method: 'DELETE', path: `/webhooks/${enc(id)}/permanent` });
  if (options.json) printJson(ctx.io, { id, purged: true });
  else ctx.io.err(`Purged webhook endpoint ${id}.\n`);
}
