import type { OrgAccess, OrgListItem, OrgView, Page } from '../../../shared/api/tenancy.js';
export type { OrgAccess, OrgListItem, OrgView, Page };
import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import { type Problem, problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import { MAPPINGS_CHANNEL, notify } from '../../db/channels.js';
import type { OrgChanges, OrgRecord, OrgsRepo, Tx, VisibleOrgRow } from '../../tenancy/orgs-repo.js';

/** Who is calling, as the organizations API needs to know it. */
export interface OrgCaller {
  readonly sub: string;
  /** Realm role `admin` (a personal access token never has it). */
  readonly platformAdmin: boolean;
  /** Set for a personal access token: the one organization it acts in. */
  readonly patOrgId?: string | undefined;
}

export type OrgRule = 'default_org_protected' | 'last_org_admin';

/**
 * A business rule refused the change: 422 `validation_failed` (the only general 422 code the catalogue of
 * problem codes has) with a `rule` member naming it, and `errors` like any other validation failure.
 */
export function orgRuleProblem(rule: OrgRule, path: string, message: string): Problem {
  return problem('validation_failed', message, { rule, errors: [{ path, message }] });
}

/** 409 `org_slug_retired`: what is named by a slug outside the database (registry images) outlives its organization. */
export function slugRetired(slug: string): Problem {
  return problem('org_slug_retired', `The slug "${slug}" was a deleted organization's and is never given to another.`, { slug });
}

function iso(value: Date | string): string {
  return new Date(value).toISOString();
}

export function orgView(row: OrgRecord): OrgView {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    description: row.description,
    is_active: row.is_active,
    is_default: row.is_default,
    is_shared: row.is_shared,
    settings: row.settings_json ?? {},
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

function listItem(row: VisibleOrgRow, caller: OrgCaller): OrgListItem {
  const access: OrgAccess = row.role !== null ? 'member' : caller.platformAdmin ? 'platform_admin' : 'shared';
  return { ...orgView(row), role: row.role, source: row.source, access };
}

export interface CreateOrgInput {
  readonly slug: string;
  readonly name: string;
  readonly description?: string | null | undefined;
  readonly settings?: Record<string, unknown> | undefined;
}

export interface UpdateOrgInput {
  readonly name?: string | undefined;
  readonly description?: string | null | undefined;
  readonly is_active?: boolean | undefined;
  readonly is_shared?: boolean | undefined;
  readonly settings?: Record<string, unknown> | undefined;
}

const ACTION = 'org:manage';
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Organizations: list (filtered per caller), read, create, change, delete. Every change is audited in its transaction. */
export class OrgsService {
  /**
   * `onChange` runs after an organization was created, changed or deleted on this instance, and is
   * awaited before answering: the request path caches organizations briefly (`OrgAccessRepo.invalidate`)
   * and login sync indexes the mappings of active organizations, and neither must be stale here.
   */
  constructor(
    private readonly orgs: OrgsRepo,
    private readonly audit: AuditWriter,
    private readonly onChange: () => void | Promise<void> = () => {},
  ) {}

  /**
   * Platform admins see every organization (inactive ones with `includeInactive`); anyone else sees the
   * active organizations they are a member of and the shared one. A personal access token sees its own
   * organization and the shared one.
   */
  async list(caller: OrgCaller, filter: { includeInactive: boolean; limit: number; offset: number }): Promise<Page<OrgListItem>> {
    if (filter.includeInactive && !caller.platformAdmin) {
      throw problems.forbidden('include_inactive is reserved to platform admins.', { restriction: 'include_inactive' });
    }
    const { rows, total } = await this.orgs.list({
      sub: caller.sub,
      includeInactive: filter.includeInactive,
      memberOrSharedOnly: !caller.platformAdmin,
      restrictTo: caller.patOrgId,
      limit: filter.limit,
      offset: filter.offset,
    });
    return { items: rows.map((row) => listItem(row, caller)), total, limit: filter.limit, offset: filter.offset };
  }

  async get(ref: string): Promise<OrgView> {
    const row = await this.orgs.findRecordByRef(ref);
    if (!row) throw problems.resourceNotFound('Organization');
    return orgView(row);
  }

  async create(input: CreateOrgInput, context: AuditContext | undefined): Promise<OrgView> {
    return this.#write(async (trx) => {
      const row = await this.orgs.insert(trx, {
        slug: input.slug,
        name: input.name,
        description: input.description ?? null,
        settings_json: input.settings ?? {},
      });
      if (!row) throw problems.conflict(`An organization with the slug "${input.slug}" already exists.`);
      if (await this.orgs.slugRetired(trx, input.slug)) throw slugRetired(input.slug);
      await this.audit.record(
        context,
        {
          eventType: 'org.created',
          action: ACTION,
          resourceType: 'organization',
          resourceId: row.id,
          outcome: 'success',
          orgId: row.id,
          details: { slug: row.slug, name: row.name, description: row.description, settings: row.settings_json },
        },
        trx,
      );
      return orgView(row);
    });
  }

  /**
   * Name, description, settings (replaced whole), activity and the shared mark. Designating an
   * organization shared takes the mark off the previous one in the same transaction (both audited).
   * The default organization cannot be deactivated. A request that changes nothing writes nothing.
   */
  async update(ref: string, input: UpdateOrgInput, context: AuditContext | undefined): Promise<OrgView> {
    return this.#write(async (trx) => {
      const current = await this.orgs.lockByRef(trx, ref);
      if (!current) throw problems.resourceNotFound('Organization');
      if (current.is_default && input.is_active === false) {
        throw orgRuleProblem('default_org_protected', 'is_active', 'The platform default organization cannot be deactivated.');
      }
      const wanted: Record<keyof OrgChanges, unknown> = {
        name: input.name,
        description: input.description,
        is_active: input.is_active,
        is_shared: input.is_shared,
        settings_json: input.settings,
      };
      const changes: Record<string, unknown> = {};
      const diff: Record<string, { old: unknown; new: unknown }> = {};
      for (const [column, value] of Object.entries(wanted) as [keyof OrgChanges, unknown][]) {
        if (value === undefined || same(current[column], value)) continue;
        changes[column] = value;
        diff[column === 'settings_json' ? 'settings' : column] = { old: current[column], new: value };
      }
      if (Object.keys(changes).length === 0) return orgView(current);

      const unshared = changes.is_shared === true ? await this.orgs.clearShared(trx, current.id) : [];
      for (const previous of unshared) {
        await this.audit.record(
          context,
          {
            eventType: 'org.updated',
            action: ACTION,
            resourceType: 'organization',
            resourceId: previous.id,
            outcome: 'success',
            orgId: previous.id,
            details: { slug: previous.slug, changes: { is_shared: { old: true, new: false } }, shared_moved_to: current.slug },
          },
          trx,
        );
      }
      const updated = await this.orgs.update(trx, current.id, changes as OrgChanges);
      if ('is_active' in changes) await notifyMappings(trx, current.id);
      await this.audit.record(
        context,
        {
          eventType: 'org.updated',
          action: ACTION,
          resourceType: 'organization',
          resourceId: current.id,
          outcome: 'success',
          orgId: current.id,
          details: {
            slug: current.slug,
            changes: diff,
            ...(unshared.length > 0 ? { shared_moved_from: unshared.map((o) => o.slug) } : {}),
          },
        },
        trx,
      );
      return orgView(updated);
    });
  }

  /**
   * Deletes the organization with everything it owns (foreign keys cascade). The default organization
   * cannot be deleted. The entry has no organization (it no longer exists; earlier entries keep theirs
   * as NULL too, `ON DELETE SET NULL`): `resource_id` and the details name it.
   */
  async remove(ref: string, context: AuditContext | undefined): Promise<void> {
    await this.#write(async (trx) => {
      const current = await this.orgs.lockByRef(trx, ref);
      if (!current) throw problems.resourceNotFound('Organization');
      if (current.is_default)
        throw orgRuleProblem('default_org_protected', 'org_ref', 'The platform default organization cannot be deleted.');
      await this.orgs.retireSlug(trx, current.slug, current.id);
      await this.orgs.remove(trx, current.id);
      await notifyMappings(trx, current.id);
      await this.audit.record(
        context,
        {
          eventType: 'org.deleted',
          action: ACTION,
          resourceType: 'organization',
          resourceId: current.id,
          outcome: 'success',
          orgId: null,
          details: {
            org_id: current.id,
            slug: current.slug,
            name: current.name,
            was_shared: current.is_shared,
            was_active: current.is_active,
          },
        },
        trx,
      );
    });
  }

  /** `work` in one transaction, then `onChange` once it has committed. */
  async #write<T>(work: (trx: Tx) => Promise<T>): Promise<T> {
    const result = await this.orgs.transaction(work);
    await this.onChange();
    return result;
  }
}

/** Only mappings of active organizations match at login: other instances reload theirs on this. */
async function notifyMappings(trx: Tx, orgId: string): Promise<void> {
  await notify(trx, MAPPINGS_CHANNEL, orgId);
}
