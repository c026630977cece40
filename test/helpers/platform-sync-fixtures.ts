import type { Knex } from 'knex';
import { call, type Answer, type World } from './webhooks-fixtures.js';

/** What the platform sync tests share: calls as the platform admin, profiles, bundles of variables. */

export const asRoot = (world: World, method: string, path: string, body?: unknown): Promise<Answer> =>
  call(world, 'root', method, path, body);

/** A bundle of variables (the configuration exchange engine's `variables` family). */
export function variablesBundle(variables: Record<string, string | number>): string {
  const lines = ['version: 1', 'variables:'];
  for (const [name, value] of Object.entries(variables)) {
    lines.push(`  - name: ${name}`, `    type: ${typeof value === 'number' ? 'number' : 'string'}`, `    value: ${JSON.stringify(value)}`);
  }
  return `${lines.join('\n')}\n`;
}

export async function createProfile(world: World, fields: Record<string, unknown>): Promise<string> {
  const created = await asRoot(world, 'POST', '/platform-sync/profiles', {
    name: `profile ${Math.random().toString(36).slice(2, 8)}`,
    families: ['variables'],
    ...fields,
  });
  if (created.status !== 201) throw new Error(`POST /platform-sync/profiles answered ${created.status}: ${JSON.stringify(created.body)}`);
  return created.body.id as string;
}

export async function plan(world: World, profileId: string): Promise<Answer> {
  return asRoot(world, 'POST', `/platform-sync/profiles/${profileId}/plan`);
}

export async function apply(world: World, profileId: string, planId: string): Promise<Answer> {
  return asRoot(world, 'POST', `/platform-sync/profiles/${profileId}/apply`, { plan_id: planId });
}

/** Plans and applies, failing the test unless both succeed; answers the plan. */
export async function planAndApply(world: World, profileId: string): Promise<Answer> {
  const planned = await plan(world, profileId);
  if (planned.status !== 201) throw new Error(`plan answered ${planned.status}: ${JSON.stringify(planned.body)}`);
  const applied = await apply(world, profileId, planned.body.id as string);
  if (applied.status !== 201) throw new Error(`apply answered ${applied.status}: ${JSON.stringify(applied.body)}`);
  return planned;
}

/** `{name: value}` of an organization's live variables. */
export async function variablesOf(knex: Knex, orgId: string): Promise<Record<string, unknown>> {
  const rows: { name: string; value_json: unknown }[] = await knex('variables')
    .where({ org_id: orgId })
    .whereNull('deleted_at')
    .select('name', 'value_json');
  return Object.fromEntries(rows.map((r) => [r.name, r.value_json]));
}

export async function setVariable(knex: Knex, orgId: string, name: string, value: unknown): Promise<void> {
  await knex('variables')
    .where({ org_id: orgId, name })
    .whereNull('deleted_at')
    .update({ value_json: JSON.stringify(value) });
}
