import type { Command } from 'commander';
import type { FlowSummary } from '../../../shared/api/flows.js';
import type { ApiClient } from '../../http/client.js';
import { isUuid } from '../../../shared/ids.js';
import { idByName, listedNamed, theOneNamed } from '../named.js';
import { enc } from '../shared.js';
import type { Run } from './types.js';

/** RUN, the argument of the verbs that act on one run: its id (run names are labels, many runs share one). */
export const runArgument = (command: Command) => command.argument('<run>', 'run id');

/** `GET /runs/{run_id}`. */
export async function getRun(client: ApiClient, runId: string): Promise<Run> {
  return (await client.request({ method: 'GET', path: `/runs/${enc(runId)}` })).body as Run;
}

/** The live flows the organization reads (its own and the shared organization's) named exactly `name`. */
export function flowsNamed(client: ApiClient, name: string): Promise<FlowSummary[]> {
  return listedNamed<FlowSummary>(client, '/flows', name);
}

/** FLOW as the run routes take it: a UUID as is, else the exact name of one live flow the organization can run (`GET /flows`). */
export async function flowId(client: ApiClient, ref: string): Promise<string> {
  if (isUuid(ref)) return ref;
  const matches = (await flowsNamed(client, ref)).map((f) => ({ id: f.id, name: f.name, shared: f.read_only }));
  return theOneNamed('flow', ref, matches);
}

/** A request body with `flow_id` given as `--flow` gave it (an id or a name) made the flow's id. */
export async function withFlowId<Body extends { flow_id?: string }>(client: ApiClient, body: Body): Promise<Body> {
  return body.flow_id === undefined ? body : { ...body, flow_id: await flowId(client, body.flow_id) };
}

/** DEVICE as `--target` takes it: a UUID as is, else the exact name of one live device the organization reads (`GET /devices`). */
export async function deviceId(client: ApiClient, ref: string): Promise<string> {
  return idByName(client, '/devices', 'device', ref);
}

/** SITE as a device search takes it: a UUID as is, else the exact name of one live site the organization reads (`GET /sites`). */
export async function siteId(client: ApiClient, ref: string): Promise<string> {
  return idByName(client, '/sites', 'site', ref);
}

/** A request body's `targets` (role to devices, each an id or a name) with every device named by its id. */
export async function withDeviceIds<Body extends { targets?: Record<string, string[]> }>(client: ApiClient, body: Body): Promise<Body> {
  if (body.targets === undefined) return body;
  const ids = new Map<string, string>();
  for (const ref of new Set(Object.values(body.targets).flat())) ids.set(ref, await deviceId(client, ref));
  const targets = Object.fromEntries(Object.entries(body.targets).map(([role, refs]) => [role, refs.map((ref) => ids.get(ref)!)]));
  return { ...body, targets };
}
