import type { Command } from 'commander';
import type { SyncEntry } from '../../../shared/api/git.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { flowId } from '../runs/resolve.js';
import { enc, flag, jsonFlag } from '../shared.js';

/** What `svc flows pull` and `svc flows push` share: FLOW, `--force`, `--json`. */
export interface FlowGitOptions {
  /** A flow id or its name. */
  readonly flow: string;
  readonly force: boolean;
  readonly message: string | undefined;
  readonly json: boolean;
}

export function defineFlowGit(command: Command, description: string, force: string): Command {
  return jsonFlag(command.description(description).argument('<flow>', 'flow id, or its name').option('--force', force));
}

export function parseFlowGitOptions(flow: string, raw: Record<string, unknown>): FlowGitOptions {
  return { flow, force: raw.force === true, message: flag.string(raw, 'message'), json: flag.json(raw) };
}

/** `POST /flows/{flow_id}/<path>`; the sync entry's outcome and commit on stdout, or the entry with `--json`. */
export async function runFlowGit(path: 'sync-from-git' | 'push-to-git', options: FlowGitOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await flowId(client, options.flow);
  const body: Record<string, unknown> = { force: options.force };
  if (options.message !== undefined) body.message = options.message;
  const entry = (await client.request({ method: 'POST', path: `/flows/${enc(id)}/${path}`, body })).body as SyncEntry;
  if (options.json) return printJson(ctx.io, entry);
  const version = entry.flow_version === null ? '' : ` (version ${entry.flow_version})`;
  ctx.io.err(`${entry.direction === 'pull' ? 'Pulled' : 'Pushed'} ${entry.branch}:${entry.path}${version}.\n`);
  ctx.io.out(`${entry.outcome} ${entry.commit_sha ?? ''}\n`);
}
