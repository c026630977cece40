import type { Command } from 'commander';
import type { Monitor, MonitorSample } from '../../../shared/api/monitors.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printTable, type Column } from '../../runtime/table.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { runArgument } from './resolve.js';

export interface RunsMonitorsOptions {
  readonly run: string;
  /** A monitor of the run whose samples to print instead of the run's monitors. */
  readonly samples: string | undefined;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    runArgument(
      command
        .description("The run's monitors (what its worker sampled: a target's latency, a device's state), or one monitor's samples.")
        .option('--samples <monitor_id>', "that monitor's samples by seq (the first 5000)"),
    ),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runRunsMonitors(parseRunsMonitorsOptions(positionals[0]!, raw), ctx);

export function parseRunsMonitorsOptions(run: string, raw: Record<string, unknown>): RunsMonitorsOptions {
  return { run, samples: flag.string(raw, 'samples'), json: flag.json(raw) };
}

const withUnit = (value: number | null | undefined, unit: string | null) =>
  value === null || value === undefined ? null : `${value}${unit ? ` ${unit}` : ''}`;

const MONITOR_COLUMNS: Column<Monitor>[] = [
  { header: 'ID', value: (m) => m.id },
  { header: 'NAME', value: (m) => m.name },
  { header: 'TARGET', value: (m) => m.target },
  { header: 'STATUS', value: (m) => m.status },
  { header: 'SAMPLES', value: (m) => m.sample_count },
  { header: 'LAST', value: (m) => withUnit(m.last_sample?.value, m.unit) ?? m.last_sample?.status },
];

const SAMPLE_COLUMNS: Column<MonitorSample>[] = [
  { header: 'SEQ', value: (s) => s.seq },
  { header: 'TS', value: (s) => s.ts },
  { header: 'VALUE', value: (s) => s.value },
  { header: 'STATUS', value: (s) => s.status },
];

/** `GET /runs/{run_id}/monitors`, or with `--samples` `GET /runs/{run_id}/monitors/{monitor_id}/samples`; `--json` the daemon's body. */
export async function runRunsMonitors(options: RunsMonitorsOptions, ctx: Context): Promise<void> {
  const base = `/runs/${enc(options.run)}/monitors`;
  if (options.samples !== undefined) {
    const path = `${base}/${enc(options.samples)}/samples`;
    const page = (await ctx.apiClient().request({ method: 'GET', path, query: { limit: '5000' } })).body as { items: MonitorSample[] };
    if (options.json) return printJson(ctx.io, page);
    return printTable(ctx.io, page.items, SAMPLE_COLUMNS, 'No samples.');
  }
  const list = (await ctx.apiClient().request({ method: 'GET', path: base })).body as { items: Monitor[] };
  if (options.json) return printJson(ctx.io, list);
  printTable(ctx.io, list.items, MONITOR_COLUMNS, 'No monitors.');
}
