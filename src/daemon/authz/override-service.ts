import type { Knex } from 'knex';
import type { Principal } from '../../shared/auth/principal.js';
import type { Catalogue } from '../../shared/catalogue/catalogue.js';
import { checkActionOverride, checkRouteOverride, OverrideRuleViolation } from '../../shared/policy/resolution.js';
import type { AuditContext } from '../audit/audit-context.js';
import type { AuditWriter } from '../audit/audit-writer.js';
import { type Problem, problem } from '../../shared/api/problem.js';
import { notify, OVERRIDES_CHANNEL } from '../db/channels.js';
import type { OverrideRepo } from './override-repo.js';
import type { OverrideStore } from './override-store.js';

export interface OverrideChange {
  readonly previous: string | null;
  readonly policy: string | null;
}

function ruleProblem(violation: OverrideRuleViolation): Problem {
  return problem('override_rule_violation', violation.message, { rule: violation.rule });
}

/**
 * Sets and clears overrides: checked against the resolution rules (422 naming the rule), written with
 * their audit entry and a NOTIFY in one transaction, then applied on this instance at once.
 */
export class OverrideService {
  constructor(
    private readonly knex: Knex,
    private readonly catalogue: Catalogue,
    private readonly repo: OverrideRepo,
    private readonly store: OverrideStore,
    private readonly audit: AuditWriter,
  ) {}

  async setAction(action: string, policy: string, editor: Principal, context: AuditContext | undefined): Promise<OverrideChange> {
    const checked = this.#check(() => checkActionOverride(this.catalogue, action, policy));
    return this.#write(context, { layer: 'action', action }, async (trx) => {
      const previous = (await this.repo.actionPolicy(trx, action)) ?? null;
      await this.repo.upsertAction(trx, action, checked, editor);
      return { previous, policy: checked };
    });
  }

  async clearAction(action: string, context: AuditContext | undefined): Promise<OverrideChange> {
    this.#check(() => this.catalogue.actionByName.has(action) || raise('unknown_action', `"${action}" is not an action of the catalogue`));
    return this.#write(context, { layer: 'action', action }, async (trx) => {
      const previous = (await this.repo.actionPolicy(trx, action)) ?? null;
      await this.repo.deleteAction(trx, action);
      return { previous, policy: null };
    });
  }

  async setRoute(
    method: string,
    path: string,
    policy: string,
    editor: Principal,
    context: AuditContext | undefined,
  ): Promise<OverrideChange> {
    const { route, policy: checked } = this.#check(() => checkRouteOverride(this.catalogue, method, path, policy));
    return this.#write(context, { layer: 'route', route: route.key, action: route.action }, async (trx) => {
      const previous = (await this.repo.routePolicy(trx, route.method, route.path)) ?? null;
      await this.repo.upsertRoute(trx, route.method, route.path, checked, editor);
      return { previous, policy: checked };
    });
  }

  async clearRoute(method: string, path: string, context: AuditContext | undefined): Promise<OverrideChange> {
    const route = this.catalogue.routeByKey.get(`${method.toUpperCase()} ${path}`);
    if (!route) throw ruleProblem(new OverrideRuleViolation('unknown_route', `"${method} ${path}" is not a route of the catalogue`));
    return this.#write(context, { layer: 'route', route: route.key, action: route.action }, async (trx) => {
      const previous = (await this.repo.routePolicy(trx, route.method, route.path)) ?? null;
      await this.repo.deleteRoute(trx, route.method, route.path);
      return { previous, policy: null };
    });
  }

  #check<T>(check: () => T): T {
    try {
      return check();
    } catch (error) {
      if (error instanceof OverrideRuleViolation) throw ruleProblem(error);
      throw error;
    }
  }

  async #write(
    context: AuditContext | undefined,
    target: Record<string, string>,
    change: (trx: Knex.Transaction) => Promise<OverrideChange>,
  ): Promise<OverrideChange> {
    const result = await this.knex.transaction(async (trx) => {
      const outcome = await change(trx);
      await this.audit.record(
        context,
        {
          eventType: outcome.policy === null ? 'permission.override_cleared' : 'permission.override_set',
          action: 'permission:manage',
          resourceType: target.layer === 'action' ? 'permission_action_override' : 'permission_override',
          resourceId: target.layer === 'action' ? target.action! : target.route!,
          outcome: 'success',
          orgId: null,
          details: { ...target, old_policy: outcome.previous, new_policy: outcome.policy },
        },
        trx,
      );
      await notify(trx, OVERRIDES_CHANNEL, target.route ?? target.action!);
      return outcome;
    });
    await this.store.reload();
    return result;
  }
}

function raise(rule: 'unknown_action', message: string): never {
  throw new OverrideRuleViolation(rule, message);
}
