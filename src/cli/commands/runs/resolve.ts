import type { Command } from 'commander';
import type { Device } from '../../../shared/api/devices.js';
import type { FlowSummary } from '../../../shared/api/flows.js';
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

/**
 * FLOW as the run routes take it: a UUID as is; anything else the exact name of one live flow the
 * organization can run (its own or the shared organization's, as `GET /flows` lists them). Flow
 * names are unique within an organization but the shared organization may hold the same name, so two
 * matches are refused with their ids (exit 2) rather than guessed between; none is exit 3.
 */
export async function flowId(client: ApiClient, ref: string): Promise<string> {
  if (UUID.test(ref)) return ref;
  const page = (await client.request({ method: 'GET', path: '/flows', query: { q: ref, limit: '500' } })).body as { items?: FlowSummary[] };
  const matches = (page.items ?? []).filter((f) => f.name === ref);
  if (matches.length === 1) return matches[0]!.id;
  if (matches.length === 0) throw new CliError('not_found', `no flow named "${ref}" in this organization or the shared one`);
  throw usageError(
    `${matches.length} flows are named "${ref}": ${matches.map((f) => `${f.id}${f.read_only ? ' (shared)' : ''}`).join(', ')}`,
    'pass the flow id instead of the name',
  );
}

/** A request body with `flow_id` given as `--flow` gave it (an id or a name) made the flow's id. */
export async function withFlowId<Body extends { flow_id?: string }>(client: ApiClient, body: Body): Promise<Body> {
  return body.flow_id === undefined ? body : { ...body, flow_id: await flowId(client, body.flow_id) };
}

/**
 * DEVICE as `--target` takes it: a UUID as is; anything else the exact name of one live device the
 * organization reads (its own or the shared organization's, as `GET /devices` lists them). Two matches
 * are refused with their ids (exit 2), none is exit 3.
 */
export async function deviceId(client: ApiClient, ref: string): Promise<string> {
  if (UUID.test(ref)) return ref;
  const page = (await client.request({ method: 'GET', path: '/devices', query: { q: ref, limit: '500' } })).body as { items?: Device[] };
  const matches = (page.items ?? []).filter((d) => d.name === ref);
  if (matches.length === 1) return matches[0]!.id;
  if (matches.length === 0) throw new CliError('not_found', `no device named "${ref}" in this organization or the shared one`);
  throw usageError(
    `${matches.length} devices are named "${ref}": ${matches.map((d) => `${d.id}${d.shared ? ' (shared)' : ''}`).join(', ')}`,
    'pass the device id instead of the name',
  );
}

/** A request body's `targets` (role to devices, each an id or a name) with every device named by its id. */
export async function withDeviceIds<Body extends { targets?: Record<string, string[]> }>(client: ApiClient, body: Body): Promise<Body> {
  if (body.targets === undefined) return body;
  const ids = new Map<string, string>();
  for (const ref of new Set(Object.values(body.targets).flat())) ids.set(ref, await deviceId(client, ref));
  const targets = Object.fromEntries(Object.entries(body.targets).map(([role, refs]) => [role, refs.map((ref) => ids.get(ref)!)]));
  return { ...body, targets };
}
