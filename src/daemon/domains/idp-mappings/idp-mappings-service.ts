import type { IdpMapping as IdpMappingView, SyncPreview } from '../../../shared/api/idp-mappings.js';
export type { IdpMappingView };
import { planSync, type CandidateMapping, type PlannedChange } from '../../../shared/tenancy/sync-plan.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import { problems } from '../../../shared/api/problems.js';
import { isUuid } from '../../../shared/ids.js';
import type { MappingIndex } from '../../tenancy/mapping-index.js';
import type { UsersRepo } from '../../tenancy/users-repo.js';
import type { IdpMappingRow, IdpMappingsRepo } from '../../tenancy/idp-mappings-repo.js';
import type { Services } from '../../services.js';

export interface OrgRef {
  readonly id: string;
  readonly slug: string;
}

export interface IdpMappingsSettings {
  /** SERVICE_ORG_IDP_GROUP_CLAIM: the only claim a mapping may name. */
  readonly groupClaim: string;
  /** SERVICE_ORG_IDP_SYNC_AUTHORITATIVE: the mode the preview plans with. */
  readonly authoritative: boolean;
}

export type PreviewChange = SyncPreview['changes'][number];
export type { SyncPreview };

/** Who asks for a preview: it decides which organizations are shown in full. */
export interface PreviewCaller {
  /** Realm role `admin`: sees every organization. */
  readonly platformAdmin: boolean;
  readonly sub: string;
  /** A personal access token acts only in its own organization: nothing else is shown. */
  readonly onlyOrgId?: string | undefined;
}

const ACTION = 'org_idp_mapping:manage';

function iso(value: Date | string): string {
  return new Date(value).toISOString();
}

export function idpMappingView(row: IdpMappingRow): IdpMappingView {
  return {
    id: row.id,
    org_id: row.org_id,
    claim: row.claim,
    value: row.value,
    role: row.role,
    is_active: row.is_active,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}

/**
 * IdP mappings of one organization (`org_idp_mapping:manage`): create, list, change role or activity,
 * delete, each change audited and announced (NOTIFY) in the same transaction, then applied to this
 * instance's mapping index before answering, so the next login here already uses it; and the preview
 * of what a login would do, read from the same index as the login.
 */
export class IdpMappingsService {
  constructor(
    private readonly repo: IdpMappingsRepo,
    private readonly users: UsersRepo,
    private readonly audit: AuditWriter,
    private readonly settings: IdpMappingsSettings,
    private readonly index: MappingIndex,
  ) {}

  async list(org: OrgRef, filter: { active?: boolean | undefined }): Promise<IdpMappingView[]> {
    return (await this.repo.list(org.id, filter)).map(idpMappingView);
  }

  async create(
    org: OrgRef,
    input: { claim: string; value: string; role: string; is_active: boolean },
    context?: AuditContext,
  ): Promise<IdpMappingView> {
    if (input.claim !== this.settings.groupClaim) {
      throw problems.validation([{ path: 'claim', message: `must be the configured group claim "${this.settings.groupClaim}"` }]);
    }
    try {
      const view = await this.repo.transaction(async (trx) => {
        const row = await this.repo.insert(trx, {
          org_id: org.id,
          claim: input.claim,
          value: input.value,
          role: input.role,
          is_active: input.is_active,
        });
        if (!row) throw duplicate();
        await this.audit.record(
          context,
          {
            eventType: 'idp_mapping.created',
            action: ACTION,
            resourceType: 'idp_mapping',
            resourceId: row.id,
            outcome: 'success',
            orgId: org.id,
            details: { org: org.slug, claim: row.claim, value: row.value, role: row.role, is_active: row.is_active },
          },
          trx,
        );
        await this.repo.notifyChanged(trx, org.id);
        return idpMappingView(row);
      });
      await this.index.refresh();
      return view;
    } catch (error) {
      // ON CONFLICT covers the constraint; this only translates a violation that slipped past it.
      if (isUniqueViolation(error)) throw duplicate();
      throw error;
    }
  }

  async update(
    org: OrgRef,
    id: string,
    change: { role?: string | undefined; is_active?: boolean | undefined },
    context?: AuditContext,
  ): Promise<IdpMappingView> {
    if (!isUuid(id)) throw notFound();
    const { view, changed } = await this.repo.transaction(async (trx) => {
      const before = await this.repo.lockOfOrg(trx, org.id, id);
      if (!before) throw notFound();
      const changed =
        (change.role !== undefined && change.role !== before.role) ||
        (change.is_active !== undefined && change.is_active !== before.is_active);
      // Sending what is already there changes nothing: no write, no entry.
      if (!changed) return { view: idpMappingView(before), changed };
      const after = await this.repo.update(trx, id, change);
      await this.audit.record(
        context,
        {
          eventType: 'idp_mapping.updated',
          action: ACTION,
          resourceType: 'idp_mapping',
          resourceId: id,
          outcome: 'success',
          orgId: org.id,
          details: {
            org: org.slug,
            claim: after.claim,
            value: after.value,
            old: { role: before.role, is_active: before.is_active },
            new: { role: after.role, is_active: after.is_active },
          },
        },
        trx,
      );
      await this.repo.notifyChanged(trx, org.id);
      return { view: idpMappingView(after), changed };
    });
    if (changed) await this.index.refresh();
    return view;
  }

  async remove(org: OrgRef, id: string, context?: AuditContext): Promise<void> {
    if (!isUuid(id)) throw notFound();
    await this.repo.transaction(async (trx) => {
      const row = await this.repo.deleteOfOrg(trx, org.id, id);
      if (!row) throw notFound();
      await this.audit.record(
        context,
        {
          eventType: 'idp_mapping.deleted',
          action: ACTION,
          resourceType: 'idp_mapping',
          resourceId: id,
          outcome: 'success',
          orgId: org.id,
          details: { org: org.slug, claim: row.claim, value: row.value, role: row.role, is_active: row.is_active },
        },
        trx,
      );
      await this.repo.notifyChanged(trx, org.id);
    });
    await this.index.refresh();
  }

  /**
   * What a login of `username` carrying `values` in the configured claim would do, planned by the same
   * `planSync` the login uses, over every organization. Organizations the caller does not administer
   * are reduced to a count of their real changes (their identity, the user's memberships there and
   * their mappings stay hidden); a platform admin sees everything.
   */
  async preview(username: string, values: readonly string[], caller: PreviewCaller): Promise<SyncPreview> {
    const user = await this.users.findByUsername(username);
    if (!user) throw problems.resourceNotFound('User');
    const [memberships, matched] = await Promise.all([
      this.repo.membershipsOf(user.id),
      this.index.match(this.settings.groupClaim, values),
    ]);
    const plan = planSync({ memberships, matched, authoritative: this.settings.authoritative });

    const visible = caller.platformAdmin ? undefined : new Set(await this.repo.adminOrgIdsOf(caller.sub));
    if (visible && caller.onlyOrgId !== undefined) for (const orgId of [...visible]) if (orgId !== caller.onlyOrgId) visible.delete(orgId);
    const shown = plan.filter((c) => !visible || visible.has(c.orgId));
    const hidden = plan.filter((c) => visible && !visible.has(c.orgId) && c.kind !== 'untouched').length;

    const slugs = new Map((await this.repo.orgsByIds(shown.map((c) => c.orgId))).map((o) => [o.id, o.slug]));
    const byId = new Map<string, CandidateMapping>(matched.map((m) => [m.id, m]));
    const changes = shown
      .map((c) => previewChange(c, { id: c.orgId, slug: slugs.get(c.orgId) ?? '' }, byId))
      .sort((a, b) => a.org.slug.localeCompare(b.org.slug));
    return {
      user: { id: user.id, username: user.username },
      claim: this.settings.groupClaim,
      authoritative: this.settings.authoritative,
      changes,
      hidden_changes: hidden,
    };
  }
}

function previewChange(change: PlannedChange, org: OrgRef, mappings: ReadonlyMap<string, CandidateMapping>): PreviewChange {
  const mappingId = 'mappingId' in change ? change.mappingId : undefined;
  const mapping = mappingId ? mappings.get(mappingId) : undefined;
  return {
    kind: change.kind,
    org,
    role: change.role,
    ...('from' in change ? { from: change.from } : {}),
    mapping: mapping ? { id: mapping.id, claim: mapping.claim, value: mapping.value, role: mapping.role } : null,
    ...(change.kind === 'untouched' ? { source: change.source, why: change.why } : {}),
  };
}

function notFound() {
  return problems.resourceNotFound('IdP mapping');
}

function duplicate() {
  return problems.conflict('This organization already maps this claim value.');
}

/** The service over the daemon's own pieces and settings: what its routes use, and `svcd dev`'s first-start mappings. */
export function idpMappingsServiceOf(
  services: Pick<Services, 'config' | 'idpMappings' | 'users' | 'audit' | 'mappingIndex'>,
): IdpMappingsService {
  const { config } = services;
  const settings = { groupClaim: config.orgIdpGroupClaim, authoritative: config.orgIdpSyncAuthoritative };
  return new IdpMappingsService(services.idpMappings, services.users, services.audit, settings, services.mappingIndex);
}
