import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { PlannedChange } from '../../../shared/api/config-exchange.js';
import type { SyncExport } from '../../../shared/api/platform-sync-plans.js';
import type { SyncRun } from '../../../shared/api/platform-sync-runs.js';
import { problem, Problem } from '../../../shared/api/problem.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import type { ConfigExchangeEngine } from '../config-exchange/engine/index.js';
import type { AuthorizationsService } from './authorizations-service.js';
import { itemRef } from './item-hashes.js';
import { planNotFound, profileFamilies, type PlansService } from './plans-service.js';
import type { PlanRow, PlansRepo } from './plans-repo.js';
import type { ProfileRow, ProfilesRepo } from './profiles-repo.js';
import type { ProfilesService } from './profiles-service.js';
import type { NewSyncRun, SyncRunsRepo } from './runs-repo.js';
import { syncRunView } from './runs-service.js';

const EXECUTE = 'platform_sync:execute';

const stale = (planId: string, detail: string) => problem('stale_plan', detail, { plan_id: planId });

/**
 * Apply and export of a profile (`platform_sync:execute`). An apply runs a saved plan through the
 * engine (one transaction, the fingerprint checked in it) after its own checks: the plan is the
 * profile's latest revision and not applied yet, every conflict is resolved, and its destructive changes
 * run under a live destructive authorization (used, and audited, in the same transaction). Each apply and
 * export is recorded as a sync run, a failed one too, under the correlation id its audit entries carry.
 */
export class ApplyService {
  constructor(
    private readonly engine: ConfigExchangeEngine,
    private readonly profiles: Pick<ProfilesService, 'found'>,
    private readonly profilesRepo: ProfilesRepo,
    private readonly plans: Pick<PlansService, 'found' | 'orgsOf'>,
    private readonly plansRepo: PlansRepo,
    private readonly authorizations: Pick<AuthorizationsService, 'use'>,
    private readonly runs: SyncRunsRepo,
    private readonly audit: AuditWriter,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async apply(profileId: string, planId: string, context: AuditContext): Promise<SyncRun> {
    const profile = await this.profiles.found(profileId);
    const plan = await this.plans.found(planId);
    if (plan.profile_id !== profile.id) throw planNotFound();
    const run = this.newRun(profile, plan.id, 'apply', context);
    try {
      const changes = await this.effectiveChanges(profile, plan);
      const counts = {
        created: changes.filter((c) => c.action === 'create').length,
        updated: changes.filter((c) => c.action === 'update').length,
        deleted: changes.filter((c) => c.action === 'delete').length,
      };
      const destructive = plan.changes.filter((c) => c.destructive && changes.some((e) => e.family === c.family && e.key === c.key));
      const orgs = await this.plans.orgsOf(profile);
      let recorded: SyncRun | undefined;
      const operator = {
        correlationId: run.correlation_id,
        actor: { sub: context.subject ?? null, username: context.username ?? null },
        audit: context,
      };
      await this.engine.apply({ ...plan.engine_plan, changes }, orgs.target, operator, async (trx) => {
        await this.checkFresh(trx, profile, plan);
        const authorization =
          destructive.length > 0
            ? await this.authorizations.use(trx, profile, plan.id, context, {
                correlation_id: run.correlation_id,
                destructive: destructive.length,
              })
            : undefined;
        const row = await this.runs.insert(
          { ...run, status: 'succeeded', counts, authorization_id: authorization?.id ?? null, finished_at: this.now() },
          trx,
        );
        await this.plansRepo.replaceApplied(
          trx,
          profile.id,
          row.id,
          plan.engine_plan.families,
          await this.appliedHashes(trx, profile, plan, changes),
        );
        await this.plansRepo.markApplied(trx, plan.id, this.now());
        await this.profilesRepo.markApplied(trx, profile.id, this.now());
        await this.record(
          context,
          profile,
          'platform_sync.applied',
          row.id,
          { plan_id: plan.id, counts, correlation_id: run.correlation_id },
          trx,
        );
        recorded = syncRunView(row);
        return false;
      });
      return recorded!;
    } catch (error) {
      if (error instanceof Problem) await this.failed(run, profile, error, context);
      throw error;
    }
  }

  /** This installation's configuration in the profile's scope and families, as a bundle (synchronous), recorded as an export run. */
  async export(profileId: string, context: AuditContext | undefined): Promise<SyncExport> {
    const profile = await this.profiles.found(profileId);
    const orgs = await this.plans.orgsOf(profile);
    const exported = await this.engine.export({ org: orgs.target, families: profileFamilies(this.engine, profile) });
    const run = await this.runs.insert({ ...this.newRun(profile, null, 'export', context), status: 'succeeded', finished_at: this.now() });
    await this.record(context, profile, 'platform_sync.exported', run.id, {
      families: exported.families,
      correlation_id: run.correlation_id,
    });
    return { run_id: run.id, ...exported };
  }

  /** The plan's changes minus those a conflict resolution keeps the target for; 409 while a conflict is unresolved. */
  private async effectiveChanges(profile: ProfileRow, plan: PlanRow): Promise<PlannedChange[]> {
    if (plan.applied_at !== null) throw stale(plan.id, 'This plan was applied already: plan again.');
    if (plan.profile_revision !== profile.revision) throw stale(plan.id, 'The profile changed after this plan was made: plan again.');
    const resolutions = await this.plansRepo.resolutions(profile.id);
    const unresolved = plan.changes.filter((c) => c.conflict && !resolutions.has(c.change_id)).map((c) => c.change_id);
    if (unresolved.length > 0) {
      throw problem('sync_conflict', `${unresolved.length} change(s) conflict with local edits: resolve each before applying.`, {
        change_ids: unresolved,
      });
    }
    const kept = new Set(
      plan.changes.filter((c) => resolutions.get(c.change_id)?.resolution === 'keep_target').map((c) => itemRef(c.family, c.key)),
    );
    return plan.engine_plan.changes.filter((c) => !kept.has(itemRef(c.family, c.key)));
  }

  /** Inside the apply: the profile and plan locked and checked again (a change or another apply may have come between). */
  private async checkFresh(trx: Knex.Transaction, profile: ProfileRow, plan: PlanRow): Promise<void> {
    const current = await this.profilesRepo.lock(trx, profile.id);
    const locked = await this.plansRepo.lock(trx, plan.id);
    if (!current || !locked || current.revision !== plan.profile_revision || locked.applied_at !== null) {
      throw stale(plan.id, 'The profile or the plan changed while applying: plan again.');
    }
  }

  /** What the apply leaves: the source's hash of every item, except an item kept by resolution, which keeps its old one. */
  private async appliedHashes(trx: Knex.Transaction, profile: ProfileRow, plan: PlanRow, changes: readonly PlannedChange[]) {
    const previous = await this.plansRepo.applied(profile.id, trx);
    const applied = new Set(changes.map((c) => itemRef(c.family, c.key)));
    const kept = new Set(plan.changes.map((c) => itemRef(c.family, c.key)).filter((ref) => !applied.has(ref)));
    const hashes: { family: string; key: string; sha256: string }[] = [];
    for (const [family, items] of Object.entries(plan.desired_hashes)) {
      for (const [key, sha256] of Object.entries(items)) {
        const ref = itemRef(family, key);
        const left = kept.has(ref) ? previous.get(ref) : sha256;
        if (left !== undefined) hashes.push({ family, key, sha256: left });
      }
    }
    return hashes;
  }

  private newRun(profile: ProfileRow, planId: string | null, kind: 'apply' | 'export', context: AuditContext | undefined): NewSyncRun {
    return {
      profile_id: profile.id,
      plan_id: planId,
      kind,
      status: 'failed',
      correlation_id: randomUUID(),
      counts: { created: 0, updated: 0, deleted: 0 },
      authorization_id: null,
      error: null,
      actor_sub: context?.subject ?? null,
      actor_username: context?.username ?? null,
      started_at: this.now(),
      finished_at: this.now(),
    };
  }

  private async failed(run: NewSyncRun, profile: ProfileRow, error: Problem, context: AuditContext | undefined): Promise<void> {
    const row = await this.runs.insert({
      ...run,
      status: 'failed',
      error: { code: error.code, detail: error.message },
      finished_at: this.now(),
    });
    await this.audit.record(context, {
      eventType: 'platform_sync.apply_failed',
      action: EXECUTE,
      resourceType: 'platform_sync_run',
      resourceId: row.id,
      outcome: 'failure',
      orgId: profile.target_org_id,
      details: { profile_id: profile.id, plan_id: run.plan_id, code: error.code, correlation_id: run.correlation_id },
    });
  }

  private async record(
    context: AuditContext | undefined,
    profile: ProfileRow,
    eventType: string,
    runId: string,
    details: Record<string, unknown>,
    trx?: Knex.Transaction,
  ): Promise<void> {
    await this.audit.record(
      context,
      {
        eventType,
        action: EXECUTE,
        resourceType: 'platform_sync_run',
        resourceId: runId,
        outcome: 'success',
        orgId: profile.target_org_id,
        details: { profile_id: profile.id, profile: profile.name, ...details },
      },
      trx,
    );
  }
}
