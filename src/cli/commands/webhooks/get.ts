import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printRecord } from '../../runtime/table.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { endpointArgument, endpointId, triggerUrl } from './resolve.js';
import { endpointFields, type Endpoint } from './types.js';

export interface WebhooksGetOptions {
  /** An id, or the name of one live endpoint. */
  readonly endpoint: string;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(endpointArgument(command.description('One endpoint, with its trigger URL.')));
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runWebhooksGet(parseWebhooksGetOptions(positionals[0]!, raw), ctx);

export function parseWebhooksGetOptions(endpoint: string, raw: Record<string, unknown>): WebhooksGetOptions {
  return { endpoint, json: flag.json(raw) };
}

/** `GET /webhooks/{webhook_id}`: the full record, its trigger URL included. */
export async function runWebhooksGet(options: WebhooksGetOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await endpointId(client, options.endpoint);
  const endpoint = (await client.request({ method: 'GET', path: `/webhooks/${enc(id)}` })).body as Endpoint;
  if (options.json) return printJson(ctx.io, endpoint);
  printRecord(ctx.io, endpointFields(endpoint, await triggerUrl(ctx, endpoint.trigger_path)));
}
