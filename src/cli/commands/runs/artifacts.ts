import type { Command } from 'commander';
import type { Artifact } from '../../../shared/api/artifacts.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printTable, type Column } from '../../runtime/table.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { runArtifacts } from './artifacts-of.js';
import { runArgument } from './resolve.js';

export interface RunsArtifactsOptions {
  readonly run: string;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(runArgument(command.description("The files the run's worker kept (a report, a configuration backup), oldest first.")));
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runRunsArtifacts(parseRunsArtifactsOptions(positionals[0]!, raw), ctx);

export function parseRunsArtifactsOptions(run: string, raw: Record<string, unknown>): RunsArtifactsOptions {
  return { run, json: flag.json(raw) };
}

const COLUMNS: Column<Artifact>[] = [
  { header: 'ID', value: (a) => a.id },
  { header: 'NAME', value: (a) => a.name },
  { header: 'STEP', value: (a) => a.step_id },
  { header: 'SIZE', value: (a) => a.size_bytes },
  { header: 'TYPE', value: (a) => a.content_type },
  { header: 'CREATED', value: (a) => a.created_at },
];

/** The run's `artifact.created` events as artifacts (artifacts-of.ts); `--json` `{items}` in the upload's field names. */
export async function runRunsArtifacts(options: RunsArtifactsOptions, ctx: Context): Promise<void> {
  const items = await runArtifacts(ctx.apiClient(), options.run);
  if (options.json) return printJson(ctx.io, { items });
  printTable(ctx.io, items, COLUMNS, 'No artifacts.');
}
