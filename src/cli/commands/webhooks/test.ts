import type { Command } from 'commander';
import { CliError } from '../../errors.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printRecord } from '../../runtime/table.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { endpointArgument, endpointId } from './resolve.js';
import type { TestResult } from './types.js';

export interface WebhooksTestOptions {
  readonly endpoint: string;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    endpointArgument(command.description('Check the configuration as a trigger would (sends nothing); exit 1 when it would refuse.')),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runWebhooksTest(parseWebhooksTestOptions(positionals[0]!, raw), ctx);

export function parseWebhooksTestOptions(endpoint: string, raw: Record<string, unknown>): WebhooksTestOptions {
  return { endpoint, json: flag.json(raw) };
}

/**
 * `POST /webhooks/{webhook_id}/test`: the configuration checked as a trigger would find it (nothing
 * is sent, no run starts). The result goes to stdout either way; an invalid configuration then exits 1,
 * so `svc webhooks test ID && …` can gate a script.
 */
export async function runWebhooksTest(options: WebhooksTestOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await endpointId(client, options.endpoint);
  const result = (await client.request({ method: 'POST', path: `/webhooks/${enc(id)}/test` })).body as TestResult;
  if (options.json) printJson(ctx.io, result);
  else {
    printRecord(ctx.io, [
      ['valid', result.valid ? 'yes' : 'no'],
      ...Object.entries(result.checks).map(([check, ok]) => [check, ok ? 'yes' : 'no'] as const),
      ...result.errors.map((e) => ['error', `${e.code}: ${e.message}`] as const),
    ]);
  }
  if (!result.valid)
    throw new CliError('error', `webhook endpoint ${id} would refuse triggers: ${result.errors.map((e) => e.code).join(', ')}`);
}
