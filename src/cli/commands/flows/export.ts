import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { YamlPreview } from '../../../shared/api/git.js';
import type { Context } from '../../runtime/context.js';
import { refuseExisting } from '../../runtime/download.js';
import { flowId } from '../runs/resolve.js';
import { enc, flag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { type Revision, revisionFlag } from './revision.js';

export interface FlowsExportOptions {
  /** A flow id or name. */
  readonly flow: string;
  /** A committed version, `draft`, or undefined: the newest version (the draft before any commit). */
  readonly version: Revision | undefined;
  /** A local path, or undefined: stdout. */
  readonly output: string | undefined;
  readonly clobber: boolean;
}

export function define(command: Command): void {
  command
    .description('Print a flow as the YAML file svc flows apply and git sync read (name, description, version, definition).')
    .argument('<flow>', 'flow id, or its name')
    .option('--flow-version <n>', 'this committed version, or "draft" (default: the newest version, the draft before any commit)')
    .option('-o, --output <path>', 'write it to this file instead of stdout')
    .option('--clobber', 'overwrite a local file of that name');
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runFlowsExport(parseFlowsExportOptions(positionals[0]!, raw), ctx);

export function parseFlowsExportOptions(flow: string, raw: Record<string, unknown>): FlowsExportOptions {
  return {
    flow,
    version: revisionFlag(raw, 'flowVersion', '--flow-version'),
    output: flag.string(raw, 'output'),
    clobber: raw.clobber === true,
  };
}

/** `GET /flows/{flow_id}/yaml-preview`: the YAML on stdout, or in `--output`. */
export async function runFlowsExport(options: FlowsExportOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await flowId(client, options.flow);
  const query = options.version === undefined ? undefined : { version: String(options.version) };
  const preview = (await client.request({ method: 'GET', path: `/flows/${enc(id)}/yaml-preview`, ...(query ? { query } : {}) }))
    .body as YamlPreview;
  if (options.output === undefined) return void ctx.io.out(preview.yaml);
  await refuseExisting(options.output, options.clobber);
  await writeFile(options.output, preview.yaml);
  ctx.io.err(`Wrote flow ${id} (${preview.version === 'draft' ? 'draft' : `version ${preview.version}`}) to ${options.output}.\n`);
}
