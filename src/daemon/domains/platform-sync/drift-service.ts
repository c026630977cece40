import type { Drift } from '../../../shared/api/platform-sync-plans.js';
import type { ConfigExchangeEngine } from '../config-exchange/engine/index.js';
import { itemHash, itemRef } from './item-hashes.js';
import type { PlansService } from './plans-service.js';
import type { PlansRepo } from './plans-repo.js';
import type { ProfilesService } from './profiles-service.js';

export interface DriftFilter {
  readonly family?: string | undefined;
  readonly limit: number;
  readonly offset: number;
}

/**
 * A profile's drift: the items its last successful apply left (their hashes, recorded then) that differ
 * now, changed or deleted locally since. Items the profile never applied (unmanaged) are not drift.
 */
export class DriftService {
  constructor(
    private readonly engine: ConfigExchangeEngine,
    private readonly profiles: Pick<ProfilesService, 'found'>,
    private readonly plans: Pick<PlansService, 'orgsOf'>,
    private readonly repo: PlansRepo,
  ) {}

  async drift(profileId: string, filter: DriftFilter): Promise<Drift> {
    const profile = await this.profiles.found(profileId);
    const applied = (await this.repo.appliedRows(profile.id)).filter((row) => filter.family === undefined || row.family === filter.family);
    const families = [...new Set(applied.map((row) => row.family))].filter((name) => this.engine.families.some((f) => f.name === name));
    const current = new Map<string, string>();
    if (families.length > 0) {
      const orgs = await this.plans.orgsOf(profile);
      const { document } = await this.engine.document({ org: orgs.target, families });
      for (const name of families) {
        const family = this.engine.families.find((f) => f.name === name)!;
        for (const item of (document[name] as Record<string, unknown>[] | undefined) ?? []) {
          current.set(itemRef(name, family.keyOf(item)), itemHash(item));
        }
      }
    }
    const drifted = applied
      .map((row) => ({ row, now: current.get(itemRef(row.family, row.item_key)) }))
      .filter(({ row, now }) => now !== row.sha256)
      .map(({ row, now }) => ({
        family: row.family,
        key: row.item_key,
        state: now === undefined ? ('deleted' as const) : ('changed' as const),
        applied_sha256: row.sha256,
        current_sha256: now ?? null,
      }));
    return {
      profile_id: profile.id,
      last_applied_at: profile.last_applied_at?.toISOString() ?? null,
      items: drifted.slice(filter.offset, filter.offset + filter.limit),
      total: drifted.length,
      limit: filter.limit,
      offset: filter.offset,
    };
  }
}
