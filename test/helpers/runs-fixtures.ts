import type { Knex } from 'knex';
import type { FlowDefinition } from '../../src/shared/flows/definition.js';

/**
 * Rows the runs tests need from other domains, written with the fixed schemas of flows, flow_versions
 * and devices (docs: /work/briefs/schemas.md), so these tests do not depend on those domains' routes.
 */

export const DEFINITION: FlowDefinition = {
  steps: [{ id: 'noop', handler: 'general.noop', config: {}, target_role: 'routers' }],
  edges: [],
  inputs: [
    { name: 'change_id', type: 'string', required: true, pattern: 'CHG[0-9]+' },
    { name: 'retries', type: 'integer', min: 0, max: 5, default: 2 },
    { name: 'mode', type: 'select', options: ['check', 'apply'], default: 'check' },
    { name: 'dry_run', type: 'boolean' },
  ],
  target_roles: [{ name: 'routers', min_devices: 1, max_devices: 3 }, { name: 'switches' }],
};

/** A definition with no inputs and no target roles: anything runs it. */
export const BARE: FlowDefinition = { steps: [], edges: [], inputs: [], target_roles: [] };

export interface FlowSeed {
  readonly name: string;
  /** Committed versions, oldest first; none leaves the flow never committed. */
  readonly versions?: readonly FlowDefinition[];
  readonly manualRuns?: boolean;
  readonly deleted?: boolean;
}

export async function seedFlow(knex: Knex, orgId: string, seed: FlowSeed): Promise<string> {
  const versions = seed.versions ?? [];
  const [row] = await knex('flows')
    .insert({
      org_id: orgId,
      name: seed.name,
      draft_json: JSON.stringify(versions.at(-1) ?? BARE),
      draft_dirty: versions.length === 0,
      latest_version: versions.length,
      manual_runs_enabled: seed.manualRuns ?? true,
      deleted_at: seed.deleted ? knex.fn.now() : null,
    })
    .returning('id');
  const flowId = (row as { id: string }).id;
  for (const [i, definition] of versions.entries()) {
    await knex('flow_versions').insert({
      flow_id: flowId,
      version: i + 1,
      definition_json: JSON.stringify(definition),
      committed_by: 'sub-seed',
    });
  }
  return flowId;
}

export async function seedDevice(knex: Knex, orgId: string, name: string, options: { deleted?: boolean } = {}): Promise<string> {
  const [row] = await knex('devices')
    .insert({
      org_id: orgId,
      name,
      hostname: `${name}.example.test`,
      platform: 'ios-xe',
      deleted_at: options.deleted ? knex.fn.now() : null,
    })
    .returning('id');
  return (row as { id: string }).id;
}

export const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
