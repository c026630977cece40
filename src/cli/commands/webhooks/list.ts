import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printTable } from '../../runtime/table.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { itemsOf } from './resolve.js';
import { DELETED_COLUMN, ENDPOINT_COLUMNS, type EndpointListItem } from './types.js';

export interface WebhooksListOptions {
  readonly includeDeleted: boolean;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(command.description("The organization's endpoints.")).option('--include-deleted', 'also soft-deleted ones');
}

export const invoke: Invoke = ({ raw, ctx }) => runWebhooksList(parseWebhooksListOptions(raw), ctx);

export function parseWebhooksListOptions(raw: Record<string, unknown>): WebhooksListOptions {
  return { includeDeleted: raw.includeDeleted === true, json: flag.json(raw) };
}

/**
 * `GET /webhooks[?include_deleted=true]`. `--json`: `{items}`, the shape of every svc list, though the
 * route answers a bare array (`jq '.items[]'` works the same on all of them).
 */
export async function runWebhooksList(options: WebhooksListOptions, ctx: Context): Promise<void> {
  const query: Record<string, string> = options.includeDeleted ? { include_deleted: 'true' } : {};
  const items = itemsOf<EndpointListItem>((await ctx.apiClient().request({ method: 'GET', path: '/webhooks', query })).body);
  if (options.json) return printJson(ctx.io, { items });
  printTable(ctx.io, items, options.includeDeleted ? [...ENDPOINT_COLUMNS, DELETED_COLUMN] : ENDPOINT_COLUMNS, 'No webhook endpoints.');
}
