import { posix } from 'node:path';
import type { Command } from 'commander';
import { usageError } from '../../errors.js';
import type { Context } from '../../runtime/context.js';
import { refuseExisting, saveDownload } from '../../runtime/download.js';
import { enc, flag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { artifactOf } from './artifacts-of.js';
import { runArgument } from './resolve.js';

export interface RunsDownloadOptions {
  readonly run: string;
  /** An artifact's id or name; undefined with `all`. */
  readonly artifact: string | undefined;
  readonly all: boolean;
  /** A local path, `-` for stdout, or undefined: the artifact's file name (`<run id>-artifacts.zip` with --all) here. */
  readonly output: string | undefined;
  readonly clobber: boolean;
}

export function define(command: Command): void {
  runArgument(
    command.description(
      "Stream one of the run's artifacts to a local file or stdout, checked against its SHA-256 on the way; or all of them as a zip (--all).",
    ),
  )
    .argument('[artifact]', 'artifact id, or its name in the run')
    .option('--all', 'every artifact of the run, as one zip (entries named as the artifacts)')
    .option(
      '-o, --output <path>',
      "where to write: a path, or - for stdout (default: the artifact's file name, or <run id>-artifacts.zip, in the current directory)",
    )
    .option('--clobber', 'overwrite a local file of that name');
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runRunsDownload(parseRunsDownloadOptions(positionals, raw), ctx);

export function parseRunsDownloadOptions(positionals: readonly string[], raw: Record<string, unknown>): RunsDownloadOptions {
  const artifact = positionals[1];
  const all = raw.all === true;
  if (artifact === undefined && !all) throw usageError('name an artifact (its id or name), or pass --all for a zip of them all');
  if (artifact !== undefined && all) throw usageError('name an artifact or pass --all, not both');
  return { run: positionals[0]!, artifact, all, output: flag.string(raw, 'output'), clobber: raw.clobber === true };
}

/**
 * `GET /runs/{run_id}/artifacts/{artifact_id}/download`, or with --all `GET /runs/{run_id}/artifacts/download-all`,
 * streamed as `svc files download` streams (runtime/download.ts): to a `.part` file renamed once whole, or to
 * stdout with `-o -`. One artifact is checked against its SHA-256; the zip, made while it is sent, has none.
 */
export async function runRunsDownload(options: RunsDownloadOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const base = `/runs/${enc(options.run)}/artifacts`;
  if (options.artifact === undefined) {
    const target = options.output ?? `${options.run}-artifacts.zip`;
    await refuseExisting(target, options.clobber);
    const response = await client.open({ method: 'GET', path: `${base}/download-all`, headers: { accept: '*/*' } });
    await saveDownload(ctx.io, response, target, undefined, `the artifacts of run ${options.run}`);
    if (target !== '-') ctx.io.err(`Downloaded the artifacts of run ${options.run} to ${target}.\n`);
    return;
  }
  const artifact = await artifactOf(client, options.run, options.artifact);
  const target = options.output ?? posix.basename(artifact.name);
  await refuseExisting(target, options.clobber);
  const response = await client.open({ method: 'GET', path: `${base}/${enc(artifact.id)}/download`, headers: { accept: '*/*' } });
  await saveDownload(ctx.io, response, target, artifact.sha256, artifact.name);
  if (target !== '-') ctx.io.err(`Downloaded ${artifact.name} to ${target} (${artifact.size_bytes} bytes).\n`);
}
