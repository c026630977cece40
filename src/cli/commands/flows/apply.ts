import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { FlowSummary } from '../../../shared/api/flows.js';
import type { FlowDefinition } from '../../../shared/flows/definition.js';
import type { YamlIssue } from '../../../shared/flows/flow-yaml.js';
import { CliError, usageError } from '../../errors.js';
import type { ApiClient, ApiResponse } from '../../http/client.js';
import type { Context } from '../../runtime/context.js';
import { printJson, readStdin } from '../../runtime/io.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { flowsNamed } from '../runs/resolve.js';
import { commitFlow } from './commit.js';

export interface FlowsApplyOptions {
  /** A flow file, or `-` for stdin. */
  readonly file: string;
  /** The flow to create or update; undefined: the file's `name`. */
  readonly name: string | undefined;
  readonly commit: boolean;
  readonly message: string | undefined;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description(
        "Save a flow file (YAML or JSON, as svc flows export prints it) as the draft of the organization's flow of its name, made if there is none; prints the flow's id.",
      )
      .argument('<file>', 'the flow file, or - for standard input')
      .option('--name <name>', "the flow to create or update (default: the file's name)")
      .option('--commit', 'then commit the draft as a new version (the file is checked against every rule first)')
      .option('-m, --message <text>', "with --commit, the version's message"),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runFlowsApply(parseFlowsApplyOptions(positionals[0]!, raw), ctx);

export function parseFlowsApplyOptions(file: string, raw: Record<string, unknown>): FlowsApplyOptions {
  const message = flag.string(raw, 'message');
  const commit = raw.commit === true;
  if (message !== undefined && !commit) throw usageError('--message goes with --commit');
  return { file, name: flag.string(raw, 'name'), commit, message, json: flag.json(raw) };
}

/** The written flow as POST and PUT answer it: its summary and how its draft fares against the rules. */
interface WrittenFlow extends FlowSummary {
  readonly validation: { readonly valid: boolean; readonly issues: readonly { readonly path: string; readonly message: string }[] };
}

/**
 * Flows as code: the file is read here first (the flow file reader git sync uses, so an issue names its
 * line and column; with --commit every rule commit checks, else only the shape a draft needs), and nothing
 * is sent when it fails (exit 1). Then `PUT /flows/{flow_id}` on the organization's flow of that name (a
 * shared organization's flow of the name is not it), or `POST /flows`; with --commit `POST
 * /flows/{flow_id}/commit`. The id on stdout, what was done on stderr; `--json` the flow as it is after.
 */
export async function runFlowsApply(options: FlowsApplyOptions, ctx: Context): Promise<void> {
  const text = options.file === '-' ? await readStdin(ctx.io) : await readLocal(options.file);
  const { flowFromYaml } = await import('../../../shared/flows/flow-yaml.js');
  const parsed = flowFromYaml(text, options.commit);
  if (!parsed.ok) throw invalidFile(ctx, options.file, parsed.issues);
  const name = options.name ?? parsed.labels.name;
  if (name === undefined) throw usageError(`${options.file} names no flow`, 'pass --name NAME, or give the file a name member');
  const client = ctx.apiClient();
  const existing = await ownFlowNamed(client, name);
  const saved = existing
    ? await update(client, existing, parsed.definition, parsed.labels.description)
    : await create(client, name, parsed.definition, parsed.labels.description);
  const written = saved.body as WrittenFlow;
  ctx.io.err(`${existing ? 'Updated the draft of' : 'Created'} flow ${written.name} (${written.id}).\n`);
  if (!written.validation.valid) {
    const issues = written.validation.issues.map((issue) => `  ${issue.path || '(definition)'}: ${issue.message}`).join('\n');
    ctx.io.err(`The draft breaks ${written.validation.issues.length} rule(s); a commit would refuse it:\n${issues}\n`);
  }
  // What this command saved is what it commits: a save by someone else in between is 412, not committed.
  if (options.commit) await commitFlow(ctx, written.id, options.message, saved.headers.get('etag') ?? undefined);
  if (!options.json) return void ctx.io.out(`${written.id}\n`);
  printJson(ctx.io, options.commit ? (await client.request({ method: 'GET', path: `/flows/${enc(written.id)}` })).body : written);
}

async function readLocal(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError('error', `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** Each issue as `FILE:LINE:COLUMN: PATH: message` on stderr (editors jump to it), then exit 1. */
function invalidFile(ctx: Context, file: string, issues: readonly YamlIssue[]): CliError {
  for (const issue of issues) ctx.io.err(`${file}:${issue.line}:${issue.column}: ${issue.path ? `${issue.path}: ` : ''}${issue.message}\n`);
  return new CliError('error', `${file} is not a valid flow file (${issues.length} issue(s)); nothing was sent`);
}

/** The active organization's own live flow of exactly this name (names are unique there), if any. */
async function ownFlowNamed(client: ApiClient, name: string): Promise<FlowSummary | undefined> {
  return (await flowsNamed(client, name)).find((flow) => !flow.read_only);
}

async function create(
  client: ApiClient,
  name: string,
  definition: FlowDefinition,
  description: string | null | undefined,
): Promise<ApiResponse> {
  const body = { name, definition, ...(description === undefined ? {} : { description }) };
  return client.request({ method: 'POST', path: '/flows', body });
}

/** PUT clears an absent description, so a file without one keeps the flow's. */
async function update(
  client: ApiClient,
  flow: FlowSummary,
  definition: FlowDefinition,
  description: string | null | undefined,
): Promise<ApiResponse> {
  const body = { name: flow.name, description: description === undefined ? flow.description : description, definition };
  return client.request({ method: 'PUT', path: `/flows/${enc(flow.id)}`, body });
}
