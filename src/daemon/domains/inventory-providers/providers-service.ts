import type { Knex } from 'knex';
import type {
  CreateProviderBody,
  Provider,
  ProviderInventory,
  ProviderList,
  UpdateProviderBody,
} from '../../../shared/api/inventory-providers.js';
import { problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import { parseProviderId, providerIdOf } from '../../../shared/inventory/provider-ref.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import type { Credentials } from './credentials.js';
import type { ImportedRepo } from './imported-repo.js';
import { checkConfig, checkCredentialRef, pluginOf } from './provider-config.js';
import { providerAuditView, providerView } from './provider-view.js';
import type { ProviderFilter, ProviderRow, ProvidersRepo } from './providers-repo.js';
import type { StaticDocuments } from './static-documents.js';
import type { SyncRunsRepo } from './sync-runs-repo.js';

export interface OrgRef {
  readonly id: string;
  readonly slug: string;
}

const RESOURCE = 'inventory_provider';
const MANAGE = 'inventory_provider:manage';

export const providerNotFound = () => problems.resourceNotFound('Inventory provider');

/**
 * Inventory providers of the active organization (`inventory_provider:view|manage|purge`): the
 * configuration checked by the provider's plugin, the credential a secret reference resolved once on
 * save (never stored or answered as a value), every change audited in its transaction.
 */
export class ProvidersService {
  constructor(
    private readonly repo: ProvidersRepo,
    private readonly imported: ImportedRepo,
    private readonly credentials: Credentials,
    private readonly documents: StaticDocuments,
    private readonly audit: AuditWriter,
    private readonly runs: SyncRunsRepo,
  ) {}

  async list(org: OrgRef, filter: ProviderFilter): Promise<ProviderList> {
    const { rows, total } = await this.repo.list(org.id, filter);
    return { items: rows.map(providerView), total, limit: filter.limit, offset: filter.offset };
  }

  async get(org: OrgRef, providerId: string): Promise<Provider> {
    return providerView(await this.live(org, providerId));
  }

  async create(org: OrgRef, input: CreateProviderBody, context: AuditContext | undefined): Promise<Provider> {
    const plugin = pluginOf(input.type);
    const expected = providerIdOf(plugin.type, input.name, (await this.repo.isDefaultOrg(org.id)) ? null : org.id);
    if (input.provider_id !== undefined && input.provider_id !== expected) {
      throw problem('provider_id_mismatch', `The provider id of this type and name here is "${expected}".`, {
        expected,
        given: input.provider_id,
      });
    }
    const config = checkConfig(plugin, input.config);
    await this.documents.check(org.id, config);
    const credentialRef = input.credential_ref ?? null;
    checkCredentialRef(plugin, credentialRef);
    if (credentialRef !== null) await this.credentials.check(org.id, credentialRef);
    const by = context?.subject ?? null;
    return this.repo.transaction(async (trx) => {
      if (await this.repo.liveHolds(trx, expected)) throw problems.conflict(`A provider "${expected}" exists already.`);
      const row = await this.repo.insert(trx, {
        org_id: org.id,
        type: plugin.type,
        name: input.name,
        provider_id: expected,
        description: input.description ?? null,
        config_json: JSON.stringify(config),
        credential_ref: credentialRef,
        enabled: input.enabled ?? true,
        created_by: by,
        updated_by: by,
      });
      await this.record(trx, context, 'entity.created', MANAGE, row, { provider: providerAuditView(row) });
      return providerView(row);
    });
  }

  async update(org: OrgRef, providerId: string, input: UpdateProviderBody, context: AuditContext | undefined): Promise<Provider> {
    const current = await this.live(org, providerId);
    const plugin = pluginOf(current.type);
    const change: Record<string, unknown> = {};
    if (input.config !== undefined) {
      const config = checkConfig(plugin, input.config);
      await this.documents.check(org.id, config);
      change.config_json = JSON.stringify(config);
    }
    if (input.credential_ref !== undefined) {
      checkCredentialRef(plugin, input.credential_ref);
      if (input.credential_ref !== null) await this.credentials.check(org.id, input.credential_ref);
      change.credential_ref = input.credential_ref;
    }
    if (input.description !== undefined) change.description = input.description;
    if (input.enabled !== undefined) change.enabled = input.enabled;
    if (Object.keys(change).length === 0) return providerView(current);
    return this.repo.transaction(async (trx) => {
      const locked = await this.repo.lock(trx, current.id);
      if (!locked || locked.deleted_at) throw providerNotFound();
      const row = await this.repo.update(trx, current.id, { ...change, updated_by: context?.subject ?? null });
      await this.record(trx, context, 'entity.updated', MANAGE, row, {
        changed: Object.keys(input).sort(),
        provider: providerAuditView(row),
      });
      return providerView(row);
    });
  }

  /** Soft delete: the provider stops syncing; what it imported stays (purge-inventory removes it). */
  async remove(org: OrgRef, providerId: string, context: AuditContext | undefined): Promise<void> {
    const current = await this.live(org, providerId);
    await this.repo.transaction(async (trx) => {
      const locked = await this.repo.lock(trx, current.id);
      if (!locked || locked.deleted_at) throw providerNotFound();
      await this.repo.softDelete(trx, current.id, context?.subject ?? null);
      await this.record(trx, context, 'entity.deleted', MANAGE, locked, { provider: providerAuditView(locked) });
    });
  }

  async restore(org: OrgRef, providerId: string, context: AuditContext | undefined): Promise<Provider> {
    const current = parseProviderId(providerId) ? await this.repo.find(org.id, providerId) : undefined;
    if (!current || !current.deleted_at) throw problems.resourceNotFound('Deleted inventory provider');
    return this.repo.transaction(async (trx) => {
      if (await this.repo.liveHolds(trx, current.provider_id)) throw problems.conflict(`A live provider "${current.provider_id}" exists.`);
      await this.repo.restore(trx, current.id, context?.subject ?? null);
      const row = (await this.repo.lock(trx, current.id))!;
      await this.record(trx, context, 'entity.restored', MANAGE, row, { provider: providerAuditView(row) });
      return providerView(row);
    });
  }

  /**
   * `DELETE …/permanent`: the provider, its sync history and everything it imported, for good (live or
   * soft-deleted provider). Imported rows would otherwise stay provider-managed with no provider to manage them.
   * Refused (409 `inventory_sync_running`) while a sync of the provider runs.
   */
  async purge(org: OrgRef, providerId: string, context: AuditContext | undefined): Promise<void> {
    const current = parseProviderId(providerId) ? await this.repo.find(org.id, providerId) : undefined;
    if (!current) throw providerNotFound();
    // A running sync would go on importing rows of a provider that is gone, provider-managed for ever.
    const running = await this.runs.running(current.id);
    if (running) throw problem('inventory_sync_running', 'A sync of this provider is running.', { sync_id: running.id });
    await this.repo.transaction(async (trx) => {
      const removed = await this.imported.purge(trx, org.id, current.provider_id);
      await this.repo.purge(trx, current.id);
      await this.record(trx, context, 'entity.purged', 'inventory_provider:purge', current, {
        provider: providerAuditView(current),
        was_deleted: current.deleted_at !== null,
        removed,
      });
    });
  }

  /** `GET /inventory/provider-inventory`: per live provider, its imported sites, devices and objects, live and stale. */
  async inventory(org: OrgRef): Promise<ProviderInventory> {
    const providers = await this.repo.allLive(org.id);
    const counts = await this.imported.counts(org.id);
    return {
      items: providers.map((row) => {
        const mine = counts.filter((count) => count.provider_id === row.provider_id);
        const of = (kind: string) => mine.find((count) => count.kind === kind) ?? { live: 0, stale: 0 };
        const objects = Object.fromEntries(
          mine.filter((count) => count.kind === 'objects').map((count) => [count.object_type!, { live: count.live, stale: count.stale }]),
        );
        return {
          provider_id: row.provider_id,
          type: row.type,
          name: row.name,
          sites: { live: of('sites').live, stale: of('sites').stale },
          devices: { live: of('devices').live, stale: of('devices').stale },
          objects,
          last_sync: providerView(row).last_sync,
        };
      }),
    };
  }

  /** The organization's live provider of this id; 404 for a malformed, foreign, unknown or deleted one. */
  async live(org: OrgRef, providerId: string): Promise<ProviderRow> {
    const row = parseProviderId(providerId) ? await this.repo.find(org.id, providerId) : undefined;
    if (!row || row.deleted_at) throw providerNotFound();
    return row;
  }

  private async record(
    trx: Knex.Transaction,
    context: AuditContext | undefined,
    eventType: string,
    action: string,
    row: ProviderRow,
    details: Record<string, unknown>,
  ): Promise<void> {
    await this.audit.record(
      context,
      { eventType, action, resourceType: RESOURCE, resourceId: row.id, outcome: 'success', orgId: row.org_id, details },
      trx,
    );
  }
}
