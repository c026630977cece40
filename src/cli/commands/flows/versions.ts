import type { Command } from 'commander';
import type { FlowVersionSummary } from '../../../shared/api/flows.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printPage, type Column, type OffsetPage } from '../../runtime/table.js';
import { positiveNumber } from '../runs/inputs.js';
import { flowId } from '../runs/resolve.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';

export interface FlowsVersionsOptions {
  /** A flow id or name. */
  readonly flow: string;
  readonly limit: number | undefined;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description("A flow's committed versions, newest first: number, message, who committed it and when.")
      .argument('<flow>', 'flow id, or its name')
      .option('--limit <n>', 'at most this many (1-500, default 50)'),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runFlowsVersions(parseFlowsVersionsOptions(positionals[0]!, raw), ctx);

export function parseFlowsVersionsOptions(flow: string, raw: Record<string, unknown>): FlowsVersionsOptions {
  return { flow, limit: positiveNumber(raw, 'limit', '--limit'), json: flag.json(raw) };
}

const COLUMNS: Column<FlowVersionSummary>[] = [
  { header: 'VERSION', value: (v) => v.version },
  { header: 'COMMITTED', value: (v) => v.committed_at },
  { header: 'BY', value: (v) => v.committed_by },
  { header: 'MESSAGE', value: (v) => v.message },
];

/** `GET /flows/{flow_id}/versions`. `--json`: the daemon's page `{items, total, limit, offset}`. */
export async function runFlowsVersions(options: FlowsVersionsOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await flowId(client, options.flow);
  const query: Record<string, string> = options.limit === undefined ? {} : { limit: String(options.limit) };
  const page = (await client.request({ method: 'GET', path: `/flows/${enc(id)}/versions`, query })).body as OffsetPage<FlowVersionSummary>;
  if (options.json) return printJson(ctx.io, page);
  printPage(ctx.io, page, COLUMNS, 'No versions: the flow was never committed.');
}
