import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { endpointArgument, endpointId } from './resolve.js';
import type { Endpoint } from './types.js';

export interface WebhooksRestoreOptions {
  /** An id, or the name of one deleted endpoint. */
  readonly endpoint: string;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(endpointArgument(command.description('Bring back a soft-deleted endpoint (same trigger URL).')));
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runWebhooksRestore(parseWebhooksRestoreOptions(positionals[0]!, raw), ctx);

export function parseWebhooksRestoreOptions(endpoint: string, raw: Record<string, unknown>): WebhooksRestoreOptions {
  return { endpoint, json: flag.json(raw) };
}

/** `POST /webhooks/{webhook_id}/restore`: the same path token answers again. */
export async function runWebhooksRestore(options: WebhooksRestoreOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await endpointId(client, options.endpoint, 'deleted');
  const endpoint = (await client.request({ method: 'POST', path: `/webhooks/${enc(id)}/restore` })).body as Endpoint;
  if (options.json) printJson(ctx.io, endpoint);
  else ctx.io.err(`Restored webhook endpoint ${endpoint.name} (${endpoint.id}).\n`);
}
