import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { enabledOf, enc, exclusive, flag, jsonFlag, someChange } from '../shared.js';
import type { Invoke } from '../verb.js';
import { withFlowId } from '../runs/resolve.js';
import { endpointFieldFlags, endpointFields, type EndpointFields } from './fields.js';
import { endpointArgument, endpointId } from './resolve.js';
import type { Endpoint } from './types.js';

export interface WebhooksUpdateOptions {
  readonly endpoint: string;
  /** The PATCH body: only what was given. */
  readonly changes: EndpointFields;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(endpointFieldFlags(endpointArgument(command.description('Change an endpoint (the auth mode is fixed at creation).'))))
    .option('--enable', 'enable it')
    .option('--disable', 'disable it (its trigger answers 404)')
    .option('--clear-allow-list', 'accept triggers from any address')
    .option('--unpin', 'run the newest committed flow version again');
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runWebhooksUpdate(parseWebhooksUpdateOptions(positionals[0]!, raw), ctx);

export function parseWebhooksUpdateOptions(endpoint: string, raw: Record<string, unknown>): WebhooksUpdateOptions {
  exclusive(raw, ['allow', '--allow'], ['clearAllowList', '--clear-allow-list']);
  exclusive(raw, ['flowVersion', '--flow-version'], ['unpin', '--unpin']);
  const changes = endpointFields(raw);
  const enabled = enabledOf(raw);
  if (enabled !== undefined) changes.enabled = enabled;
  if (raw.clearAllowList === true) changes.allowed_source_ips = null;
  if (raw.unpin === true) changes.flow_version = null;
  someChange(
    changes,
    '--name, --description, --flow, --flow-version/--unpin, --secret, --rate, --replay-window, --allow/--clear-allow-list, --enable/--disable or --payload-mapping (auth mode is fixed at creation)',
  );
  return { endpoint, changes, json: flag.json(raw) };
}

/** `PATCH /webhooks/{webhook_id}`. A new `--flow` without `--flow-version` drops the pin (the daemon's rule). */
export async function runWebhooksUpdate(options: WebhooksUpdateOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await endpointId(client, options.endpoint);
  const body = await withFlowId(client, options.changes);
  const endpoint = (await client.request({ method: 'PATCH', path: `/webhooks/${enc(id)}`, body })).body as Endpoint;
  if (options.json) printJson(ctx.io, endpoint);
  else ctx.io.err(`Updated webhook endpoint ${endpoint.name} (${endpoint.id}): ${Object.keys(options.changes).sort().join(', ')}.\n`);
}
