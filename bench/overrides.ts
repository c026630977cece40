import { CATALOGUE } from '../src/shared/catalogue/catalogue.js';
import type { Policy } from '../src/shared/policy/policies.js';
import { checkActionOverride, checkRouteOverride, OverrideRuleViolation, type Overrides } from '../src/shared/policy/resolution.js';
import { openDatabase } from '../src/daemon/db/database.js';
import { createLogger } from '../src/daemon/logging/logger.js';

/**
 * Override rows for the "overrides present" figures. Every row goes through the same rule checks the
 * API applies, so the daemon loads all of them (a row it would ignore measures nothing). Both tables
 * are unique per action and per method + pattern, so the catalogue caps how many valid rows exist:
 * fewer than `wanted` when the catalogue is small, and the figures print the count actually used.
 */
export interface OverrideRows {
  readonly actions: readonly { action: string; policy: Policy }[];
  readonly routes: readonly { method: string; path: string; policy: Policy }[];
}

// Role policies only: each is satisfied by the development principal (realm role admin), so the
// benchmarked route stays allowed whichever policy lands on it.
const POLICY_CYCLE: readonly Policy[] = ['viewer', 'operator', 'admin'];

export function overrideRows(wanted: number): OverrideRows {
  const actions: { action: string; policy: Policy }[] = [];
  const routes: { method: string; path: string; policy: Policy }[] = [];
  const admitted = <T>(check: () => T): T | undefined => {
    try {
      return check();
    } catch (error) {
      if (error instanceof OverrideRuleViolation) return undefined;
      throw error;
    }
  };
  for (const definition of CATALOGUE.actions) {
    if (actions.length >= wanted / 10) break; // roughly the brief's 1:9 split between the layers
    const policy = admitted(() => checkActionOverride(CATALOGUE, definition.action, POLICY_CYCLE[actions.length % POLICY_CYCLE.length]!));
    if (policy) actions.push({ action: definition.action, policy });
  }
  for (const route of CATALOGUE.routes) {
    if (actions.length + routes.length >= wanted) break;
    const checked = admitted(() =>
      checkRouteOverride(CATALOGUE, route.method, route.path, POLICY_CYCLE[routes.length % POLICY_CYCLE.length]!),
    );
    if (checked) routes.push({ method: route.method, path: route.path, policy: checked.policy });
  }
  return { actions, routes };
}

/** The same two maps OverrideStore.reload builds from these rows. */
export function overrideMaps(rows: OverrideRows): Overrides {
  return {
    actions: new Map(rows.actions.map((r) => [r.action, r.policy])),
    routes: new Map(rows.routes.map((r) => [`${r.method} ${r.path}`, r.policy])),
  };
}

/** Writes the rows into an already migrated PGlite data directory; no daemon may have it open. */
export async function seedOverrides(dataDir: string, rows: OverrideRows): Promise<void> {
  const db = await openDatabase({ dataDir }, createLogger('warn'));
  try {
    const by = { updated_by_sub: 'bench', updated_by_username: 'bench' };
    await db.knex.transaction(async (trx) => {
      await trx('permission_action_overrides').insert(rows.actions.map((r) => ({ ...r, ...by })));
      await trx('permission_overrides').insert(rows.routes.map((r) => ({ ...r, ...by })));
    });
  } finally {
    await db.close();
  }
}
