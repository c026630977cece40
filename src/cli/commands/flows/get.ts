import type { Command } from 'commander';
import type { z } from 'zod';
import type { flow } from '../../../shared/api/flows.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printRecord } from '../../runtime/table.js';
import { flowId } from '../runs/resolve.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';

type Flow = z.infer<typeof flow>;

export interface FlowsGetOptions {
  /** A flow id or name. */
  readonly flow: string;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description('One flow: its newest version, whether its draft differs and could be committed (and why not), who changed it last.')
      .argument('<flow>', 'flow id, or its name'),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runFlowsGet({ flow: positionals[0]!, json: flag.json(raw) }, ctx);

/** `GET /flows/{flow_id}`. `--json`: the flow with its draft and validation. */
export async function runFlowsGet(options: FlowsGetOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await flowId(client, options.flow);
  const answer = (await client.request({ method: 'GET', path: `/flows/${enc(id)}` })).body as Flow;
  if (options.json) return printJson(ctx.io, answer);
  printRecord(ctx.io, [
    ['id', answer.id],
    ['name', answer.name],
    ['description', answer.description],
    ['shared', answer.read_only ? 'yes (read-only here)' : 'no'],
    ['version', answer.latest_version || 'never committed'],
    ['draft', answer.draft_dirty ? 'edited' : 'committed'],
    ['committable', answer.validation.valid ? 'yes' : `no (${answer.validation.issues.length} issues)`],
    ['steps', answer.draft.steps.length],
    ['manual runs', answer.manual_runs_enabled ? 'on' : 'off'],
    ['updated', `${answer.updated_at}${answer.updated_by ? ` by ${answer.updated_by}` : ''}`],
    ...answer.validation.issues.map((issue) => ['issue', `${issue.path}: ${issue.message} (${issue.code})`] as const),
  ]);
}
