import type { Command } from 'commander';
import type { z } from 'zod';
import type { flowComparison } from '../../../shared/api/flows.js';
import { CliError } from '../../errors.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { flowId } from '../runs/resolve.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { type Revision, revisionFlag } from './revision.js';

type FlowComparison = z.infer<typeof flowComparison>;

export interface FlowsDiffOptions {
  /** A flow id or name. */
  readonly flow: string;
  /** Undefined: the daemon's default, the newest version (`from`) and the draft (`to`). */
  readonly from: Revision | undefined;
  readonly to: Revision | undefined;
  /** Exit 1 when the two differ, as `git diff --exit-code`, so a script can ask without reading the output. */
  readonly exitCode: boolean;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description('What changed in a flow between two of its revisions (default: its newest version and its draft).')
      .argument('<flow>', 'flow id, or its name')
      .option('--from <revision>', 'a committed version, or "draft" (default: the newest version)')
      .option('--to <revision>', 'a committed version, or "draft" (default: the draft)')
      .option('--exit-code', 'exit 1 when the two differ, 0 when they are the same'),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runFlowsDiff(parseFlowsDiffOptions(positionals[0]!, raw), ctx);

export function parseFlowsDiffOptions(flow: string, raw: Record<string, unknown>): FlowsDiffOptions {
  return {
    flow,
    from: revisionFlag(raw, 'from', '--from'),
    to: revisionFlag(raw, 'to', '--to'),
    exitCode: raw.exitCode === true,
    json: flag.json(raw),
  };
}

/**
 * `GET /flows/{flow_id}/versions/compare`: a line per change on stdout, `+` added, `-` removed, `~`
 * changed (with the fields or configuration keys that differ); nothing when the two are the same.
 * `--json`: the daemon's comparison.
 */
export async function runFlowsDiff(options: FlowsDiffOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await flowId(client, options.flow);
  const query: Record<string, string> = {};
  if (options.from !== undefined) query.from = String(options.from);
  if (options.to !== undefined) query.to = String(options.to);
  const comparison = (await client.request({ method: 'GET', path: `/flows/${enc(id)}/versions/compare`, query })).body as FlowComparison;
  const [from, to] = [revisionName(comparison.from), revisionName(comparison.to)];
  if (options.json) printJson(ctx.io, comparison);
  else if (comparison.identical) ctx.io.err(`No changes between ${from} and ${to}.\n`);
  else {
    ctx.io.err(`Changes from ${from} to ${to}:\n`);
    ctx.io.out(changeLines(comparison).join('\n') + '\n');
  }
  if (options.exitCode && !comparison.identical) throw new CliError('error', `${from} and ${to} differ`);
}

function revisionName(revision: Revision): string {
  return revision === 'draft' ? 'the draft' : `version ${revision}`;
}

function changeLines(c: FlowComparison): string[] {
  const named = (what: string, changes: FlowComparison['inputs']) => [
    ...changes.added.map((name) => `+ ${what} ${name}`),
    ...changes.removed.map((name) => `- ${what} ${name}`),
    ...changes.changed.map((change) => `~ ${what} ${change.name}: ${change.fields.join(', ')}`),
  ];
  return [
    ...c.steps.added.map((step) => `+ step ${step.id} (${step.handler})`),
    ...c.steps.removed.map((step) => `- step ${step.id} (${step.handler})`),
    ...c.steps.changed.map((step) => `~ step ${step.id}: ${stepFields(step)}`),
    ...c.edges.added.map((edge) => `+ edge ${edge.from} -> ${edge.to}`),
    ...c.edges.removed.map((edge) => `- edge ${edge.from} -> ${edge.to}`),
    ...named('input', c.inputs),
    ...named('target role', c.target_roles),
    ...(c.network_policy.changed ? ['~ network policy'] : []),
  ];
}

function stepFields(step: FlowComparison['steps']['changed'][number]): string {
  return step.fields
    .map((field) => (field === 'config' && step.config_keys.length > 0 ? `config (${step.config_keys.join(', ')})` : field))
    .join(', ');
}
