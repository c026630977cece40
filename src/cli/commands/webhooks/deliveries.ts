import type { Command } from 'commander';
import { usageError } from '../../errors.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printTable } from '../../runtime/table.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { endpointArgument, endpointId, itemsOf } from './resolve.js';
import { DELIVERY_COLUMNS, type Delivery } from './types.js';

export interface WebhooksDeliveriesOptions {
  readonly endpoint: string;
  readonly limit: number;
  readonly offset: number;
  readonly json: boolean;
}

const DEFAULT_LIMIT = 50;

function count(raw: Record<string, unknown>, key: 'limit' | 'offset', fallback: number): number {
  const text = flag.string(raw, key);
  if (text === undefined) return fallback;
  if (!/^\d{1,9}$/.test(text)) throw usageError(`--${key} must be a whole number, not "${text}"`);
  return Number(text);
}

export function define(command: Command): void {
  jsonFlag(endpointArgument(command.description("The endpoint's delivery journal, newest first (never the bodies).")))
    .option('--limit <n>', 'at most this many (1-500, default 50)')
    .option('--offset <n>', 'skip this many');
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runWebhooksDeliveries(parseWebhooksDeliveriesOptions(positionals[0]!, raw), ctx);

export function parseWebhooksDeliveriesOptions(endpoint: string, raw: Record<string, unknown>): WebhooksDeliveriesOptions {
  return { endpoint, limit: count(raw, 'limit', DEFAULT_LIMIT), offset: count(raw, 'offset', 0), json: flag.json(raw) };
}

/**
 * `GET /webhooks/{webhook_id}/deliveries`, newest first. The route answers an array and the total in
 * `X-Total-Count`; `--json` puts them together as `{items, total, limit, offset}`, the page shape of
 * the other svc lists, because a header is lost once the body is piped on.
 */
export async function runWebhooksDeliveries(options: WebhooksDeliveriesOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await endpointId(client, options.endpoint, 'any');
  const answer = await client.request({
    method: 'GET',
    path: `/webhooks/${enc(id)}/deliveries`,
    query: { limit: String(options.limit), offset: String(options.offset) },
  });
  const items = itemsOf<Delivery>(answer.body);
  const header = Number(answer.headers.get('x-total-count'));
  const total = Number.isInteger(header) && answer.headers.has('x-total-count') ? header : options.offset + items.length;
  if (options.json) return printJson(ctx.io, { items, total, limit: options.limit, offset: options.offset });
  printTable(ctx.io, items, DELIVERY_COLUMNS, 'No deliveries.');
  if (total > options.offset + items.length && items.length > 0)
    ctx.io.err(`Showing ${items.length} of ${total}; use --offset ${options.offset + items.length} for more.\n`);
}
