import type {
  CreateProfileBody,
  ProfileSource,
  ProfileTarget,
  SyncProfile,
  SyncProfileList,
  UpdateProfileBody,
} from '../../../shared/api/platform-sync.js';
import { problems } from '../../../shared/api/problems.js';
import { isUuid } from '../../../shared/ids.js';
import { DEFAULT_ORG_SLUG } from '../../../shared/policy/org-scope.js';
import { parseSecretReference } from '../../../shared/secrets/reference.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import type { OrgAccessRepo } from '../../authz/org-access-repo.js';
import { profileAuditView, profileView } from './profile-view.js';
import type { ProfileRow, ProfilesRepo } from './profiles-repo.js';

const RESOURCE = 'platform_sync_profile';
const MANAGE = 'platform_sync:manage';

export const profileNotFound = () => problems.resourceNotFound('Sync profile');

function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}

export interface ProfileListFilter {
  readonly q?: string | undefined;
  readonly sourceKind?: string | undefined;
  readonly targetOrg?: string | undefined;
  readonly limit: number;
  readonly offset: number;
}

/** Which families a profile may name: the engine's, for a scope. */
export type FamilyCatalogue = (scope: 'org' | 'platform') => readonly string[] | undefined;

/** Platform sync profiles (`platform_sync:view|manage`); docs/platform-sync.md. */
export class ProfilesService {
  constructor(
    private readonly repo: ProfilesRepo,
    private readonly audit: AuditWriter,
    private readonly orgs: Pick<OrgAccessRepo, 'org'>,
    private readonly families: FamilyCatalogue = () => undefined,
  ) {}

  async list(filter: ProfileListFilter): Promise<SyncProfileList> {
    let targetOrgId: string | undefined;
    if (filter.targetOrg !== undefined) {
      targetOrgId = (await this.orgs.org(filter.targetOrg))?.id;
      if (!targetOrgId) return { items: [], total: 0, limit: filter.limit, offset: filter.offset };
    }
    const { rows, total } = await this.repo.list({ ...filter, targetOrgId });
    return { items: rows.map(profileView), total, limit: filter.limit, offset: filter.offset };
  }

  async get(id: string): Promise<SyncProfile> {
    return profileView(await this.found(id));
  }

  /** The profile's row, or 404. */
  async found(id: string): Promise<ProfileRow> {
    const row = isUuid(id) ? await this.repo.find(id) : undefined;
    if (!row) throw profileNotFound();
    return row;
  }

  async create(body: CreateProfileBody, context: AuditContext | undefined): Promise<SyncProfile> {
    const target = await this.targetOrgId(body.target);
    checkSource(body.source, body.target);
    const families = this.checkFamilies(body.families ?? [], body.target.scope);
    try {
      return await this.repo.transaction(async (trx) => {
        const row = await this.repo.insert(trx, {
          name: body.name,
          description: body.description ?? null,
          ...sourceColumns(body.source),
          target_org_id: target,
          families: JSON.stringify(families),
          prune: body.prune ?? false,
          created_by: context?.subject ?? null,
          updated_by: context?.subject ?? null,
        });
        await this.record(trx, context, 'entity.created', row, { profile: profileAuditView(row) });
        return profileView(row);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw problems.conflict(`A sync profile named ${body.name} exists.`);
      throw error;
    }
  }

  async update(id: string, body: UpdateProfileBody, context: AuditContext | undefined): Promise<SyncProfile> {
    if (!isUuid(id)) throw profileNotFound();
    try {
      return await this.repo.transaction(async (trx) => {
        const before = await this.repo.lock(trx, id);
        if (!before) throw profileNotFound();
        const target: ProfileTarget =
          body.target ?? (before.target_org_slug === null ? { scope: 'platform' } : { scope: 'org', org: before.target_org_slug });
        const change: Record<string, unknown> = { updated_by: context?.subject ?? null };
        if (body.target !== undefined) change.target_org_id = await this.targetOrgId(body.target);
        if (body.source !== undefined) {
          checkSource(body.source, target);
          Object.assign(change, sourceColumns(body.source));
        } else if (body.target !== undefined && before.source_token_ref !== null) {
          checkTokenRef(before.source_token_ref, target);
        }
        if (body.families !== undefined || body.target !== undefined) {
          change.families = JSON.stringify(this.checkFamilies(body.families ?? before.families, target.scope));
        }
        for (const field of ['name', 'description', 'prune'] as const) {
          if (body[field] !== undefined) change[field] = body[field];
        }
        const row = await this.repo.update(trx, id, change);
        await this.record(trx, context, 'entity.updated', row, {
          changed: Object.keys(body).sort(),
          before: profileAuditView(before),
          profile: profileAuditView(row),
        });
        return profileView(row);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw problems.conflict(`A sync profile named ${body.name ?? ''} exists.`);
      throw error;
    }
  }

  /** Removes the profile with its plans, authorizations and run history (the audit log keeps the record). */
  async remove(id: string, context: AuditContext | undefined): Promise<void> {
    if (!isUuid(id)) throw profileNotFound();
    await this.repo.transaction(async (trx) => {
      const row = await this.repo.lock(trx, id);
      if (!row) throw profileNotFound();
      await this.repo.remove(trx, id);
      await this.record(trx, context, 'entity.deleted', row, { profile: profileAuditView(row) });
    });
  }

  private async targetOrgId(target: ProfileTarget): Promise<string | null> {
    if (target.scope === 'platform') return null;
    const org = await this.orgs.org(target.org);
    if (!org) throw problems.validation([{ path: 'target.org', message: 'no such organization' }]);
    return org.id;
  }

  private checkFamilies(families: readonly string[], scope: 'org' | 'platform'): string[] {
    const unique = [...new Set(families)].sort();
    const known = this.families(scope);
    if (known === undefined) return unique;
    const errors = unique
      .filter((name) => !known.includes(name))
      .map((name) => ({ path: `families.${families.indexOf(name)}`, message: `not a resource family of the ${scope} scope` }));
    if (errors.length > 0) throw problems.validation(errors);
    return unique;
  }

  private async record(
    trx: Parameters<Parameters<ProfilesRepo['transaction']>[0]>[0],
    context: AuditContext | undefined,
    eventType: string,
    row: ProfileRow,
    details: Record<string, unknown>,
  ): Promise<void> {
    await this.audit.record(
      context,
      { eventType, action: MANAGE, resourceType: RESOURCE, resourceId: row.id, outcome: 'success', orgId: row.target_org_id, details },
      trx,
    );
  }
}

function sourceColumns(source: ProfileSource): Record<string, unknown> {
  return {
    source_kind: source.kind,
    source_bundle: source.kind === 'bundle' ? source.bundle : null,
    source_file_id: source.kind === 'file' ? source.file_id : null,
    source_base_url: source.kind === 'installation' ? source.base_url : null,
    source_token_ref: source.kind === 'installation' ? source.token_ref : null,
    source_org: source.kind === 'installation' ? (source.org ?? null) : null,
  };
}

function checkSource(source: ProfileSource, target: ProfileTarget): void {
  if (source.kind === 'installation') checkTokenRef(source.token_ref, target);
}

/**
 * The token is a secret of the profile's home organization (its target, or the default organization for a
 * platform profile): a location naming another organization is refused, as it could never resolve.
 */
function checkTokenRef(reference: string, target: ProfileTarget): void {
  const parsed = parseSecretReference(reference);
  if (!parsed) throw problems.validation([{ path: 'source.token_ref', message: 'must be a secret reference, never a value' }]);
  const home = target.scope === 'org' ? target.org : DEFAULT_ORG_SLUG;
  if (parsed.kind === 'location' && parsed.orgSlug !== home) {
    throw problems.validation([{ path: 'source.token_ref', message: `must name a secret of the organization ${home}` }]);
  }
}
