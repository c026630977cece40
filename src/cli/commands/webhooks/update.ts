import type { Command } from 'commander';
import { usageError } from '../../errors.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { enc, flag, jsonFlag } from '../shared.js';
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

function exclusive(raw: Record<string, unknown>, a: [key: string, name: string], b: [key: string, name: string]): void {
  const given = (key: string) => raw[key] !== undefined && raw[key] !== false;
  if (given(a[0]) && given(b[0])) throw usageError(`give ${a[1]} or ${b[1]}, not both`);
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
  exclusive(raw, ['enable', '--enable'], ['disable', '--disable']);
  exclusive(raw, ['allow', '--allow'], ['clearAllowList', '--clear-allow-list']);
  exclusive(raw, ['flowVersion', '--flow-version'], ['unpin', '--unpin']);
  const changes = endpointFields(raw);
  if (raw.enable === true) changes.enabled = true;
  if (raw.disable === true) changes.enabled = false;
  if (raw.clearAllowList === true) changes.allowed_source_ips = null;
  if (raw.unpin === true) changes.flow_version = null;
  if (Object.keys(changes).length === 0) {
    throw usageError(
      'nothing to change',
      'pass --name, --description, --flow, --flow-version/--unpin, --secret, --rate, --replay-window, --allow/--clear-allow-list, --enable/--disable or --payload-mapping (auth mode is fixed at creation)',
    );
  }
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
