import type { z } from 'zod';
import type { CreateOperationBody, Operation, Plan, projection, resourceFamilies } from '../../../shared/api/config-exchange.js';
import { problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import { isUuid } from '../../../shared/ids.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import type { OrgsRepo } from '../../tenancy/orgs-repo.js';
import { iso } from '../inventory/access.js';
import { bundleJsonSchema } from './engine/bundle-schema.js';
import type { ConfigExchangeEngine, Org } from './engine/index.js';
import type { OperationRow, OperationsRepo } from './repos/operations-repo.js';

/** Who asks: a platform admin (the routes are platform-scoped), with the request's audit context. */
export interface Caller {
  readonly sub: string | null;
  readonly username: string | null;
  readonly audit: AuditContext | undefined;
}

/**
 * The routes' side of configuration exchange: what the engine offers (families, schema, projection) read
 * synchronously, and operations queued for the runner. A request is checked as far as it can be before
 * it is queued (an invalid bundle 422, an unknown or unfinished plan, a plan already stale 409), so a
 * queued operation fails only on what changed after it was accepted.
 */
export class ConfigExchangeService {
  constructor(
    private readonly engine: ConfigExchangeEngine,
    private readonly repo: OperationsRepo,
    private readonly orgs: OrgsRepo,
    private readonly audit: AuditWriter,
    private readonly queued: () => void,
  ) {}

  families(): z.infer<typeof resourceFamilies> {
    return {
      items: this.engine.families.map((family, order) => {
        const schema = family.item.toJSONSchema?.() as { properties?: Record<string, unknown> } | undefined;
        return {
          name: family.name,
          scope: family.scope,
          depends_on: [...family.dependsOn],
          order,
          summary: family.summary,
          fields: Object.keys(schema?.properties ?? {}),
        };
      }),
    };
  }

  schema(): Record<string, unknown> {
    return bundleJsonSchema(this.engine.families);
  }

  async projection(query: { org?: string | undefined; families?: string | undefined }): Promise<z.infer<typeof projection>> {
    const org = await this.#org(query.org);
    const families = query.families
      ?.split(',')
      .map((name) => name.trim())
      .filter(Boolean);
    const { document, families: names, fingerprint } = await this.engine.document({ org, families });
    return { org: (document.org as string | undefined) ?? null, families: names, bundle: document, fingerprint };
  }

  async create(caller: Caller, body: CreateOperationBody): Promise<{ correlation_id: string; status: 'queued' }> {
    const row: Record<string, unknown> = {
      mode: body.mode,
      prune: body.prune ?? false,
      families_json: body.families ? JSON.stringify(body.families) : null,
    };
    let org = await this.#org(body.org);
    if (body.mode === 'export') {
      this.engine.familiesOf({ org, families: body.families });
    } else if (body.mode === 'plan') {
      if (body.bundle === undefined) throw problems.validation([{ path: 'bundle', message: 'a plan needs the bundle (YAML text)' }]);
      const bundle = this.engine.parse(body.bundle);
      org ??= await this.#org(bundle.org);
      this.engine.checkScope(bundle, { org, families: body.families });
      row.bundle = body.bundle;
    } else {
      const plan = await this.#plan(body.plan_id);
      org = plan.org;
      if (!(await this.engine.isCurrent(plan.plan, org))) throw stalePlan(plan.plan.plan_id);
      row.plan_id = plan.plan.plan_id;
      row.prune = plan.plan.prune;
      row.families_json = JSON.stringify(plan.plan.families);
    }
    const created = await this.repo.transaction(async (trx) => {
      const inserted = await this.repo.insert(trx, {
        ...row,
        org_id: org?.id ?? null,
        org_slug: org?.slug ?? null,
        requested_by_sub: caller.sub,
        requested_by_username: caller.username,
        client_ip: caller.audit?.clientIp ?? null,
        user_agent: caller.audit?.userAgent?.slice(0, 512) ?? null,
      });
      await this.audit.record(
        caller.audit,
        {
          eventType: 'config_exchange.operation_requested',
          action: 'config_exchange:execute',
          resourceType: 'config_exchange_operation',
          resourceId: inserted.correlation_id,
          outcome: 'success',
          orgId: org?.id ?? null,
          details: {
            mode: body.mode,
            org: org?.slug ?? null,
            families: body.families ?? null,
            prune: inserted.prune,
            plan_id: inserted.plan_id,
            correlation_id: inserted.correlation_id,
          },
        },
        trx,
      );
      return inserted;
    });
    this.queued();
    return { correlation_id: created.correlation_id, status: 'queued' };
  }

  async get(id: string): Promise<Operation> {
    const row = isUuid(id) ? await this.repo.find(id) : undefined;
    if (!row) throw problems.resourceNotFound('Operation');
    return operationView(row);
  }

  /** Queued: cancelled at once. Running: asked to stop (an apply stops before it commits). Finished: 409. */
  async cancel(caller: Caller, id: string): Promise<Operation> {
    if (!isUuid(id)) throw problems.resourceNotFound('Operation');
    const row = await this.repo.transaction(async (trx) => {
      const cancelled = await this.repo.cancel(trx, id);
      if (!cancelled) throw problems.resourceNotFound('Operation');
      const found = cancelled.row;
      if (!cancelled.changed)
        throw problem('operation_finished', `The operation has already ${found.status}.`, { current_status: found.status });
      await this.audit.record(
        caller.audit,
        {
          eventType: 'config_exchange.operation_cancelled',
          action: 'config_exchange:execute',
          resourceType: 'config_exchange_operation',
          resourceId: id,
          outcome: 'success',
          orgId: found.org_id,
          details: { mode: found.mode, status: found.status, correlation_id: id },
        },
        trx,
      );
      return found;
    });
    return operationView(row);
  }

  async #org(ref: string | undefined): Promise<Org | undefined> {
    if (ref === undefined) return undefined;
    const org = await this.orgs.findByRef(ref);
    if (!org) throw problems.resourceNotFound('Organization');
    return { id: org.id, slug: org.slug };
  }

  async #plan(planId: string | undefined): Promise<{ plan: Plan; org: Org | undefined }> {
    if (planId === undefined) throw problems.validation([{ path: 'plan_id', message: 'an apply names the plan to apply' }]);
    const row = isUuid(planId) ? await this.repo.find(planId) : undefined;
    if (!row) throw problems.resourceNotFound('Plan');
    if (row.mode !== 'plan' || row.status !== 'succeeded') {
      throw problem('plan_not_applicable', `Operation ${planId} is a ${row.mode} that is ${row.status}: only a succeeded plan applies.`);
    }
    return { plan: row.result_json as Plan, org: row.org_id ? { id: row.org_id, slug: row.org_slug! } : undefined };
  }
}

function stalePlan(planId: string) {
  return problem('stale_plan', 'The configuration changed after this plan was made: plan again.', { plan_id: planId });
}

export function operationView(row: OperationRow): Operation {
  return {
    correlation_id: row.correlation_id,
    mode: row.mode,
    status: row.status,
    org: row.org_slug,
    families: row.families_json,
    prune: row.prune,
    plan_id: row.plan_id,
    progress: row.progress_json,
    result: (row.result_json ?? null) as Operation['result'],
    error: row.error_json,
    requested_by: row.requested_by_username ?? row.requested_by_sub,
    cancel_requested: row.cancel_requested,
    created_at: iso(row.created_at)!,
    started_at: iso(row.started_at),
    finished_at: iso(row.finished_at),
  };
}
