import { Option, type Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { collect, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { endFollowing, followRun, sayReconnecting } from './follow.js';
import { paramsOf, positiveNumber, targetsOf } from './inputs.js';
import { awaitingApprovalNote, progressLine } from './progress.js';
import { flowId, getRun, withDeviceIds } from './resolve.js';
import type { Run } from './types.js';

export interface RunsStartOptions {
  /** A flow id, or the name of one flow the organization can run. */
  readonly flow: string;
  readonly version: number | undefined;
  readonly params: Record<string, unknown> | undefined;
  readonly targets: Record<string, string[]> | undefined;
  readonly name: string | undefined;
  readonly force: boolean;
  readonly wait: boolean;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description('Start a run of a flow; prints its id (--wait: follows it to its end, exit 0 only when it succeeded).')
      .argument('<flow>', 'flow id, or its name')
      .option(
        '--flow-version <n>',
        "run this committed version (default: the newest); not --version, which is svc's own anywhere on the line",
      )
      .addOption(
        new Option(
          '--param <key=value>',
          'a param (repeat); the value is sent as JSON when it parses as JSON (5, true, {"a":1}, "5"), else as a string: the daemon never converts types',
        ).argParser(collect),
      )
      .option('--params-json <json>', 'params as one JSON object, or @FILE to read it; --param entries go over it')
      .addOption(
        new Option('--target <role=device>', 'devices of a target role, by id or name (repeat; several may be comma-separated)').argParser(
          collect,
        ),
      )
      .option('--name <name>', "the run's label (default: the flow's name)")
      .option('--force', "start even if the flow's manual runs are switched off (platform admins)")
      .option(
        '--wait',
        'follow the run to its end, progress on stderr; exit 7 when it fails, 8 when cancelled; Ctrl-C stops following, not the run',
      ),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runRunsStart(parseRunsStartOptions(positionals[0]!, raw), ctx);

export function parseRunsStartOptions(flow: string, raw: Record<string, unknown>): RunsStartOptions {
  return {
    flow,
    version: positiveNumber(raw, 'flowVersion', '--flow-version'),
    params: paramsOf(raw),
    targets: targetsOf(raw),
    name: flag.string(raw, 'name'),
    force: raw.force === true,
    wait: raw.wait === true,
    json: flag.json(raw),
  };
}

/**
 * `POST /runs`. The run's id alone on stdout (`RUN=$(svc runs start deploy)`), a sentence on stderr;
 * `--json` the daemon's run. With `--wait` the run is followed over its live stream, each event a line
 * on stderr, and `--json` prints the run as it ended.
 */
export async function runRunsStart(options: RunsStartOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const body = await withDeviceIds(client, {
    flow_id: await flowId(client, options.flow),
    ...(options.version === undefined ? {} : { version: options.version }),
    ...(options.params === undefined ? {} : { params: options.params }),
    ...(options.targets === undefined ? {} : { targets: options.targets }),
    ...(options.name === undefined ? {} : { name: options.name }),
  });
  const run = (await client.request({ method: 'POST', path: '/runs', body, query: options.force ? { force: 'true' } : {} })).body as Run;
  ctx.io.err(`Started run ${run.name} (${run.id}) of flow ${run.flow_name} version ${run.flow_version}: ${run.status}.\n`);
  if (!options.wait) {
    if (options.json) printJson(ctx.io, run);
    else ctx.io.out(`${run.id}\n`);
    return;
  }
  if (!options.json) ctx.io.out(`${run.id}\n`);
  const ending = await followRun(ctx, run.id, {
    event: (e) => ctx.io.err(`${[progressLine(e), awaitingApprovalNote(run.id, e)].filter((line) => line !== undefined).join('\n')}\n`),
    reconnecting: sayReconnecting(ctx),
  });
  if (ending !== undefined) {
    ctx.io.err(`Run ${run.id} ${ending}.\n`);
    if (options.json) printJson(ctx.io, await getRun(client, run.id));
  }
  endFollowing(ctx, run.id, ending);
}
