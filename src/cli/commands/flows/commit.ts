import type { Command } from 'commander';
import type { FlowVersionSummary } from '../../../shared/api/flows.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { flowId } from '../runs/resolve.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';

export interface FlowsCommitOptions {
  /** A flow id or name. */
  readonly flow: string;
  readonly message: string | undefined;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description("Commit the flow's draft as its next version; prints the version number.")
      .argument('<flow>', 'flow id, or its name')
      .option('-m, --message <text>', "the version's message"),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runFlowsCommit(parseFlowsCommitOptions(positionals[0]!, raw), ctx);

export function parseFlowsCommitOptions(flow: string, raw: Record<string, unknown>): FlowsCommitOptions {
  return { flow, message: flag.string(raw, 'message'), json: flag.json(raw) };
}

/** `POST /flows/{flow_id}/commit`, FLOW resolved as `svc runs start` resolves it: the version number on stdout, `--json` the version. */
export async function runFlowsCommit(options: FlowsCommitOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await flowId(client, options.flow);
  const version = await commitFlow(ctx, id, options.message);
  if (options.json) return printJson(ctx.io, version);
  ctx.io.out(`${version.version}\n`);
}

/**
 * Commits a flow's draft: a draft that breaks a rule is 422 `validation_failed` (exit 1), its issues'
 * paths on stderr as the daemon found them; an unchanged one 409 `nothing_to_commit`; with `ifMatch` (the
 * `ETag` of the save just made) a draft someone saved since is 412 `precondition_failed`, not committed.
 * Says the version on stderr.
 */
export async function commitFlow(ctx: Context, id: string, message: string | undefined, ifMatch?: string): Promise<FlowVersionSummary> {
  const body = message === undefined ? {} : { message };
  const headers = ifMatch === undefined ? undefined : { 'if-match': ifMatch };
  const answer = await ctx.apiClient().request({ method: 'POST', path: `/flows/${enc(id)}/commit`, body, headers });
  const version = answer.body as FlowVersionSummary;
  ctx.io.err(`Committed flow ${id} as version ${version.version}.\n`);
  return version;
}
