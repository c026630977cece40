import { randomUUID } from 'node:crypto';
import type { ConflictResolution, Resolution, SyncPlan, SyncPlanFamily } from '../../../shared/api/platform-sync-plans.js';
import { problems } from '../../../shared/api/problems.js';
import { isUuid } from '../../../shared/ids.js';
import { DEFAULT_ORG_SLUG } from '../../../shared/policy/org-scope.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import type { OrgAccessRepo } from '../../authz/org-access-repo.js';
import type { ConfigExchangeEngine, Org } from '../config-exchange/engine/index.js';
import { annotate, itemHash } from './item-hashes.js';
import { planFamilyView, planView } from './plan-view.js';
import type { PlanRow, PlansRepo } from './plans-repo.js';
import type { ProfileRow } from './profiles-repo.js';
import { sha256 } from './profile-view.js';
import type { ProfilesService } from './profiles-service.js';
import type { SourceReader } from './source-reader.js';

const EXECUTE = 'platform_sync:execute';

export const planNotFound = () => problems.resourceNotFound('Sync plan');

/** Where a profile lands and whose secrets and files it reads. */
export interface ProfileOrgs {
  /** The target organization; undefined for a platform profile. */
  readonly target: Org | undefined;
  /** The target, or the default organization for a platform profile. */
  readonly home: Org;
}

/** The families a profile covers: its own list, else every family of its target's scope. */
export function profileFamilies(engine: Pick<ConfigExchangeEngine, 'families'>, profile: ProfileRow): string[] {
  if (profile.families.length > 0) return profile.families;
  const scope = profile.target_org_id === null ? 'platform' : 'org';
  return engine.families.filter((f) => f.scope === scope).map((f) => f.name);
}

/** Plans of a profile's source against this installation, their reads, and conflict resolutions. */
export class PlansService {
  constructor(
    private readonly repo: PlansRepo,
    private readonly profiles: Pick<ProfilesService, 'found'>,
    private readonly engine: ConfigExchangeEngine,
    private readonly source: SourceReader,
    private readonly orgs: Pick<OrgAccessRepo, 'org'>,
    private readonly audit: AuditWriter,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async orgsOf(profile: ProfileRow): Promise<ProfileOrgs> {
    const target = profile.target_org_id === null ? undefined : await this.orgs.org(profile.target_org_id);
    if (profile.target_org_id !== null && !target) throw problems.resourceNotFound('Organization');
    const home = target ?? (await this.orgs.org(DEFAULT_ORG_SLUG));
    if (!home) throw problems.resourceNotFound('Organization');
    return { target: target && { id: target.id, slug: target.slug }, home: { id: home.id, slug: home.slug } };
  }

  /** Reads the source, checks it (422 `bundle_invalid`), plans it with the engine and saves the plan. */
  async plan(profileId: string, context: AuditContext | undefined): Promise<SyncPlan> {
    const profile = await this.profiles.found(profileId);
    const orgs = await this.orgsOf(profile);
    const text = await this.source.read(profile, orgs.home.id);
    const bundle = this.engine.parse(text);
    const families = profileFamilies(this.engine, profile);
    const id = randomUUID();
    const planned = await this.engine.plan(bundle, { planId: id, org: orgs.target, families, prune: profile.prune });
    const changes = annotate(planned.changes, await this.repo.applied(profile.id));
    const row = await this.repo.insert({
      id,
      profile_id: profile.id,
      profile_revision: profile.revision,
      fingerprint: planned.fingerprint,
      source_sha256: sha256(text),
      bundle: text,
      prune: profile.prune,
      summary: planned.summary,
      engine_plan: planned,
      changes,
      desired_hashes: this.desiredHashes(planned.families, bundle.sections),
      created_by: context?.subject ?? null,
    });
    await this.audit.record(context, {
      eventType: 'platform_sync.planned',
      action: EXECUTE,
      resourceType: 'platform_sync_plan',
      resourceId: row.id,
      outcome: 'success',
      orgId: profile.target_org_id,
      details: {
        profile_id: profile.id,
        profile: profile.name,
        summary: planned.summary,
        conflicts: changes.filter((c) => c.conflict).length,
      },
    });
    return planView(row, await this.repo.resolutions(profile.id), orgs.target?.slug ?? null);
  }

  async get(planId: string): Promise<SyncPlan> {
    const row = await this.found(planId);
    const profile = await this.profiles.found(row.profile_id);
    return planView(row, await this.repo.resolutions(row.profile_id), profile.target_org_slug);
  }

  async family(planId: string, family: string): Promise<SyncPlanFamily> {
    const plan = await this.get(planId);
    if (!plan.families.includes(family)) throw problems.resourceNotFound('Family of the plan');
    return planFamilyView(plan, family);
  }

  /** Records the choice for a conflict some plan of the profile lists (404 for any other change id). */
  async resolve(
    profileId: string,
    changeId: string,
    resolution: Resolution,
    context: AuditContext | undefined,
  ): Promise<ConflictResolution> {
    const profile = await this.profiles.found(profileId);
    if (!/^[0-9a-f]{32}$/.test(changeId) || !(await this.repo.conflictPlanned(profile.id, changeId))) {
      throw problems.resourceNotFound('Conflict');
    }
    const at = this.now();
    return this.repo.transaction(async (trx) => {
      const saved = await this.repo.resolve(
        trx,
        { profile_id: profile.id, change_id: changeId, resolution, resolved_by: context?.subject ?? null },
        at,
      );
      await this.audit.record(
        context,
        {
          eventType: 'platform_sync.conflict_resolved',
          action: EXECUTE,
          resourceType: 'platform_sync_profile',
          resourceId: profile.id,
          outcome: 'success',
          orgId: profile.target_org_id,
          details: { profile: profile.name, change_id: changeId, resolution },
        },
        trx,
      );
      return {
        profile_id: saved.profile_id,
        change_id: saved.change_id,
        resolution: saved.resolution,
        resolved_by: saved.resolved_by,
        resolved_at: saved.resolved_at.toISOString(),
      };
    });
  }

  async found(planId: string): Promise<PlanRow> {
    const row = isUuid(planId) ? await this.repo.find(planId) : undefined;
    if (!row) throw planNotFound();
    return row;
  }

  private desiredHashes(
    families: readonly string[],
    sections: ReadonlyMap<string, readonly Record<string, unknown>[]>,
  ): Record<string, Record<string, string>> {
    const hashes: Record<string, Record<string, string>> = {};
    for (const name of families) {
      const family = this.engine.families.find((f) => f.name === name)!;
      hashes[name] = Object.fromEntries((sections.get(name) ?? []).map((item) => [family.keyOf(item), itemHash(item)]));
    }
    return hashes;
  }
}
