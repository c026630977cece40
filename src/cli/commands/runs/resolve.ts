import type { Command } from 'commander';
import type { Device } from '../../../shared/api/devices.js';
import type { FlowSummary } from '../../../shared/api/flows.js';
import type { Site } from '../../../shared/api/sites.js';
import { CliError, usageError } from '../../errors.js';
import type { ApiClient } from '../../http/client.js';
import { enc } from '../shared.js';
import type { Run } from './types.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** RUN, the argument of the verbs that act on one run: its id (run names are labels, many runs share one). */
export const runArgument = (command: Command) => command.argument('<run>', 'run id');

/** `GET /runs/{run_id}`. */
export async function getRun(client: ApiClient, runId: string): Promise<Run> {
  return (await client.request({ method: 'GET', path: `/runs/${enc(runId)}` })).body as Run;
}

/** A listed row the organization reads, under the name it may be given by. */
interface Named {
  readonly id: string;
  readonly name: string;
  /** The shared organization's, seen from another one. */
  readonly shared: boolean;
}

/** The rows of `path`'s list (own and shared organization's) named exactly `name`, among the first 500 its `q` finds. */
async function listedNamed<Row extends { readonly name: string }>(client: ApiClient, path: string, name: string): Promise<Row[]> {
  const page = (await client.request({ method: 'GET', path, query: { q: name, limit: '500' } })).body as { items?: Row[] };
  return (page.items ?? []).filter((row) => row.name === name);
}

/** The live flows the organization reads (its own and the shared organization's) named exactly `name`. */
export function flowsNamed(client: ApiClient, name: string): Promise<FlowSummary[]> {
  return listedNamed<FlowSummary>(client, '/flows', name);
}

/**
 * The id of the one row of `matches`, the rows named `ref`. Names are unique within an organization but
 * the shared organization may hold the same one, so two matches are refused with their ids (exit 2)
 * rather than guessed between; none is exit 3.
 */
function theOneNamed(what: 'flow' | 'device' | 'site', ref: string, matches: readonly Named[]): string {
  if (matches.length === 1) return matches[0]!.id;
  if (matches.length === 0) throw new CliError('not_found', `no ${what} named "${ref}" in this organization or the shared one`);
  throw usageError(
    `${matches.length} ${what}s are named "${ref}": ${matches.map((r) => `${r.id}${r.shared ? ' (shared)' : ''}`).join(', ')}`,
    `pass the ${what} id instead of the name`,
  );
}

/** FLOW as the run routes take it: a UUID as is, else the exact name of one live flow the organization can run (`GET /flows`). */
export async function flowId(client: ApiClient, ref: string): Promise<string> {
  if (UUID.test(ref)) return ref;
  const matches = (await flowsNamed(client, ref)).map((f) => ({ id: f.id, name: f.name, shared: f.read_only }));
  return theOneNamed('flow', ref, matches);
}

/** A request body with `flow_id` given as `--flow` gave it (an id or a name) made the flow's id. */
export async function withFlowId<Body extends { flow_id?: string }>(client: ApiClient, body: Body): Promise<Body> {
  return body.flow_id === undefined ? body : { ...body, flow_id: await flowId(client, body.flow_id) };
}

/** DEVICE as `--target` takes it: a UUID as is, else the exact name of one live device the organization reads (`GET /devices`). */
export async function deviceId(client: ApiClient, ref: string): Promise<string> {
  if (UUID.test(ref)) return ref;
  return theOneNamed('device', ref, await listedNamed<Device>(client, '/devices', ref));
}

/** SITE as a device search takes it: a UUID as is, else the exact name of one live site the organization reads (`GET /sites`). */
export async function siteId(client: ApiClient, ref: string): Promise<string> {
  if (UUID.test(ref)) return ref;
  return theOneNamed('site', ref, await listedNamed<Site>(client, '/sites', ref));
}

/** A request body's `targets` (role to devices, each an id or a name) with every device named by its id. */
export async function withDeviceIds<Body extends { targets?: Record<string, string[]> }>(client: ApiClient, body: Body): Promise<Body> {
  if (body.targets === undefined) return body;
  const ids = new Map<string, string>();
  for (const ref of new Set(Object.values(body.targets).flat())) ids.set(ref, await deviceId(client, ref));
  const targets = Object.fromEntries(Object.entries(body.targets).map(([role, refs]) => [role, refs.map((ref) => ids.get(ref)!)]));
  return { ...body, targets };
}
