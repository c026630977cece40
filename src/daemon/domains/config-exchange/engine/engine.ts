import type { Knex } from 'knex';
import type { ApplyResult, ExportResult, Plan } from '../../../../shared/api/config-exchange.js';
import { problem } from '../../../../shared/api/problem.js';
import { problems } from '../../../../shared/api/problems.js';
import type { AuditContext } from '../../../audit/audit-context.js';
import type { AuditWriter } from '../../../audit/audit-writer.js';
import type { BundleItem, FamilyContext, ResourceFamily } from '../family.js';
import type { ApplyLockRepo } from '../repos/apply-lock-repo.js';
import { BUNDLE_VERSION } from './bundle-schema.js';
import { renderBundle } from './bundle-yaml.js';
import { canonical, sha256 } from './canonical.js';
import { compareKeys, computePlan } from './compute-plan.js';
import { renderPlan } from './render-plan.js';
import { bundleInvalid, validateBundle, type Bundle } from './validate-bundle.js';

export interface Org {
  readonly id: string;
  readonly slug: string;
}

/** Which families an export, projection or plan covers, and for which organization. */
export interface Scope {
  readonly org: Org | undefined;
  /** Only these (default: every platform family, and every organization family when `org` is set). */
  readonly families?: readonly string[] | undefined;
}

/** Who an apply acts for and under which correlation id its audit entries are written. */
export interface Operator {
  readonly correlationId: string;
  readonly actor: { readonly sub: string | null; readonly username: string | null };
  readonly audit: AuditContext;
}

type Snapshot = Map<string, BundleItem[]>;

/** Thrown inside an apply's transaction when the operation was cancelled before it committed. */
export class ApplyCancelled extends Error {}

/**
 * Configuration exchange's engine, independent of HTTP: exports the current configuration as a bundle,
 * plans a bundle against it, applies a saved plan in one transaction. It knows families only through
 * `ResourceFamily` (family.ts); `families` is in apply order (families/index.ts sorts it).
 */
export class ConfigExchangeEngine {
  constructor(
    private readonly knex: Knex,
    readonly families: readonly ResourceFamily[],
    private readonly audit: AuditWriter,
    private readonly lock: ApplyLockRepo,
  ) {}

  /** The families of a scope, in apply order; 422 for an unknown name or an organization family without an organization. */
  familiesOf(scope: Scope): ResourceFamily[] {
    const names = scope.families;
    if (names) {
      const unknown = names.filter((n) => !this.families.some((f) => f.name === n));
      if (unknown.length > 0) throw problems.validation(unknown.map((n) => ({ path: 'families', message: `unknown family "${n}"` })));
    }
    const chosen = this.families.filter((f) => (names ? names.includes(f.name) : f.scope === 'platform' || scope.org));
    const orphan = chosen.find((f) => f.scope === 'org' && !scope.org);
    if (orphan) throw problems.validation([{ path: 'org', message: `the ${orphan.name} family needs an organization` }]);
    return chosen;
  }

  /** The current configuration of a scope as the bundle document, with the fingerprint of what it read. */
  async document(scope: Scope): Promise<{ document: Record<string, unknown>; families: string[]; fingerprint: string }> {
    const families = this.familiesOf(scope);
    const current = await this.#snapshot(this.knex, families, scope.org);
    const document: Record<string, unknown> = { version: BUNDLE_VERSION };
    if (scope.org && families.some((f) => f.scope === 'org')) document.org = scope.org.slug;
    for (const family of families) document[family.name] = current.get(family.name);
    return { document, families: families.map((f) => f.name), fingerprint: fingerprint(scope.org, current) };
  }

  async export(scope: Scope): Promise<ExportResult> {
    const { document, families } = await this.document(scope);
    return { yaml: renderBundle(document), families, org: (document.org as string | undefined) ?? null };
  }

  /** Parses and checks a bundle (422 `bundle_invalid` with every issue's line, column and path). */
  parse(text: string): Bundle {
    return validateBundle(text, this.families);
  }

  /**
   * The sections a plan of `bundle` reads (narrowed by `families`) and the first of an organization's
   * family, checked: an unknown family is 422 `validation_failed`, an organization's section without an
   * organization 422 `bundle_invalid`. Run when a plan is requested too, so nothing is queued for either.
   */
  checkScope(
    bundle: Bundle,
    options: { org: Org | undefined; families?: readonly string[] | undefined },
  ): { inBundle: string[]; needsOrg: string | undefined } {
    const inBundle = [...bundle.sections.keys()].filter((name) => !options.families || options.families.includes(name));
    if (options.families) this.familiesOf({ org: options.org, families: options.families });
    const needsOrg = inBundle.find((name) => this.families.find((f) => f.name === name)?.scope === 'org');
    if (needsOrg && !options.org) {
      throw bundleInvalid([
        { path: 'org', line: 0, column: 0, message: `the ${needsOrg} section needs an organization (the bundle's org or the operation's)` },
      ]);
    }
    return { inBundle, needsOrg };
  }

  /**
   * The plan of a checked bundle against the current configuration: the families the bundle has a
   * section for (narrowed by `families`), for `org` (the bundle's own when the caller names none).
   */
  async plan(
    bundle: Bundle,
    options: { planId: string; org: Org | undefined; families?: readonly string[]; prune: boolean },
  ): Promise<Plan> {
    const { inBundle, needsOrg } = this.checkScope(bundle, options);
    const families = this.familiesOf({ org: options.org, families: inBundle });
    const current = await this.#snapshot(this.knex, families, options.org);
    const computed = computePlan(families, current, bundle.sections, options.prune);
    return {
      plan_id: options.planId,
      org: needsOrg ? options.org!.slug : null,
      families: families.map((f) => f.name),
      prune: options.prune,
      fingerprint: fingerprint(options.org, current),
      ...computed,
      text: renderPlan(computed.changes, computed.unmanaged, computed.summary),
    };
  }

  /**
   * Applies a saved plan in one transaction, behind the apply lock: the families are read again there
   * and must give the plan's fingerprint (else 409 `stale_plan`); any failure rolls every change back.
   * `beforeCommit` answers whether the operation was cancelled meanwhile (the apply then rolls back).
   */
  async apply(
    plan: Plan,
    org: Org | undefined,
    operator: Operator,
    beforeCommit?: (trx: Knex.Transaction) => Promise<boolean>,
  ): Promise<ApplyResult> {
    const families = this.familiesOf({ org, families: plan.families });
    const after: (() => Promise<void> | void)[] = [];
    await this.knex.transaction(async (trx) => {
      await this.lock.lock(trx);
      if (fingerprint(org, await this.#snapshot(trx, families, org)) !== plan.fingerprint) {
        throw problem('stale_plan', 'The configuration changed after this plan was made: plan again.', { plan_id: plan.plan_id });
      }
      const ctx = this.#context(trx, org, operator, after);
      for (const change of plan.changes) {
        const family = families.find((f) => f.name === change.family)!;
        if (change.action === 'create') await family.create(ctx, change.after!);
        else if (change.action === 'update') await family.update(ctx, change.before!, change.after!);
        else await family.remove(ctx, change.before!);
      }
      await ctx.audit({
        eventType: 'config_exchange.applied',
        action: 'config_exchange:execute',
        resourceType: 'config_exchange_plan',
        resourceId: plan.plan_id,
        outcome: 'success',
        orgId: org?.id ?? null,
        details: { families: plan.families, prune: plan.prune, summary: plan.summary },
      });
      if (beforeCommit && (await beforeCommit(trx))) throw new ApplyCancelled();
    });
    for (const work of after) await work();
    return applyResultOf(plan);
  }

  /** Whether the rows a plan read are still as it read them (the apply checks again in its transaction). */
  async isCurrent(plan: Plan, org: Org | undefined): Promise<boolean> {
    const families = this.familiesOf({ org, families: plan.families });
    return fingerprint(org, await this.#snapshot(this.knex, families, org)) === plan.fingerprint;
  }

  #context(trx: Knex.Transaction, org: Org | undefined, operator: Operator, after: (() => Promise<void> | void)[]): FamilyContext {
    return {
      db: trx,
      org,
      actor: operator.actor,
      audit: async (event) => {
        await this.audit.record(operator.audit, { ...event, details: { ...event.details, correlation_id: operator.correlationId } }, trx);
      },
      afterCommit: (work) => after.push(work),
    };
  }

  /** Every family's current items, each normalized by its schema (field order, defaults) and sorted by key. */
  async #snapshot(db: Knex, families: readonly ResourceFamily[], org: Org | undefined): Promise<Snapshot> {
    const snapshot: Snapshot = new Map();
    const ctx: FamilyContext = { db, org, actor: { sub: null, username: null }, audit: refuseWrite, afterCommit: refuseWrite };
    for (const family of families) {
      const items = (await family.list(ctx)).map((item) => {
        const parsed = family.item.safeParse(item);
        return parsed.success ? parsed.data : item;
      });
      snapshot.set(
        family.name,
        items.sort((a, b) => compareKeys(family.keyOf(a), family.keyOf(b))),
      );
    }
    return snapshot;
  }
}

/** What applying a plan changes: its changes, in the order they are made. */
export function applyResultOf(plan: Plan): ApplyResult {
  return {
    plan_id: plan.plan_id,
    applied: plan.changes.map((c) => ({ family: c.family, key: c.key, action: c.action })),
    summary: plan.summary,
  };
}

function refuseWrite(): never {
  throw new TypeError('a family wrote while being listed');
}

/** SHA-256 over the organization and the canonical JSON of every listed item: equal exactly when the rows read are. */
function fingerprint(org: Org | undefined, snapshot: Snapshot): string {
  return sha256(canonical({ org: org?.id ?? null, families: Object.fromEntries(snapshot) }));
}
