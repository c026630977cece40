import type { AuditWriter } from '../../audit/audit-writer.js';
import type { OrgAccessRepo } from '../../authz/org-access-repo.js';
import type { Problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import { isUuid } from '../../../shared/ids.js';
import { refuseIfChanged } from '../../http/entity-tag.js';
import { canonical, changes, notFound, providerManaged, writable, type Actor } from './access.js';
import type { BulkResult } from './bulk.js';
import type { DeviceFilter, DeviceSort } from './device-filter.js';
import type { DeviceFields, DeviceRow, DevicesRepo, DevicesTx } from './devices-repo.js';
import { Lifecycle } from './lifecycle.js';
import type { SitesRepo } from './sites-repo.js';
import { deviceView, overlayOf, type DeviceView } from './views.js';

const WHAT = 'device';
const MANAGE = 'device:manage';
const ANNOTATE = 'device:annotate';
const PURGE = 'device:purge';
const EDITABLE = ['name', 'hostname', 'platform', 'role', 'site_id', 'serial', 'tags', 'attributes'] as const;

export type DeviceInput = Pick<DeviceFields, 'name'> & Partial<Omit<DeviceFields, 'name'>>;

/** `null` removes a member of the overlay, absent leaves it. */
export interface OverlayPatch {
  readonly tags?: readonly string[] | null | undefined;
  readonly maintenance?: boolean | null | undefined;
}

export interface DeviceListQuery {
  readonly filter: DeviceFilter;
  readonly includeDeleted: boolean;
  readonly limit: number;
  readonly offset: number;
  readonly sort?: DeviceSort | undefined;
}

/** Which organizations a search looks in: both readable ones, or one side. */
export type SearchScope = 'all' | 'own' | 'shared';

interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
}

function fieldsOf(input: DeviceInput): DeviceFields {
  return {
    name: input.name,
    hostname: input.hostname ?? null,
    platform: input.platform ?? null,
    role: input.role ?? null,
    site_id: input.site_id ?? null,
    serial: input.serial ?? null,
    tags: input.tags ?? [],
    attributes: input.attributes ?? {},
  };
}

function snapshot(row: DeviceRow): Record<string, unknown> {
  const { name, hostname, platform, role, site_id, serial, tags } = row;
  return { name, hostname, platform, role, site_id, serial, tags, attributes: row.attributes_json };
}

function nameTaken(): Problem {
  return problems.conflict('A live device of this organization already has this name.');
}

/**
 * Devices of the active organization, readable together with the shared organization's (`device:view`,
 * `device:manage`, `device:annotate`, `device:purge`). A provider-sourced device (one with a
 * `provider_id`) keeps its own fields as its provider reported them; local annotations live in its overlay.
 * As in SitesService, the readable organizations are looked up before a transaction opens.
 */
export class DevicesService {
  readonly #lifecycle: Lifecycle<DeviceRow>;

  constructor(
    private readonly repo: DevicesRepo,
    private readonly sites: SitesRepo,
    private readonly access: OrgAccessRepo,
    audit: AuditWriter,
    private readonly maxTargets: number,
  ) {
    this.#lifecycle = new Lifecycle({
      what: WHAT,
      actions: { manage: MANAGE, purge: PURGE },
      repo,
      audit,
      readable: (actor) => this.#readable(actor),
      snapshot,
      nameTaken,
      link: { column: 'site_id', of: (row) => row.site_id, liveTargets: (trx, orgId, ids) => sites.liveIdsOfOrg(trx, orgId, ids) },
    });
  }

  async get(actor: Actor, id: string): Promise<DeviceView> {
    const row = isUuid(id) ? await this.repo.findLive(await this.#readable(actor), id) : undefined;
    if (!row) throw notFound(WHAT);
    return deviceView(row, actor.org.id);
  }

  async list(actor: Actor, query: DeviceListQuery): Promise<Page<DeviceView>> {
    const scope = { orgId: actor.org.id, orgIds: await this.#readable(actor), includeDeleted: query.includeDeleted };
    const { rows, total } = await this.repo.list(scope, query.filter, query);
    return { items: rows.map((row) => deviceView(row, actor.org.id)), total, limit: query.limit, offset: query.offset };
  }

  /** Live devices only: a search picks what can be worked on (run targets among them). */
  async search(actor: Actor, scope: SearchScope, query: Omit<DeviceListQuery, 'includeDeleted'>): Promise<Page<DeviceView>> {
    const orgIds = await this.#scoped(actor, scope);
    const { rows, total } = await this.repo.list({ orgId: actor.org.id, orgIds, includeDeleted: false }, query.filter, query);
    return { items: rows.map((row) => deviceView(row, actor.org.id)), total, limit: query.limit, offset: query.offset };
  }

  /** The ids a search matches, at most SERVICE_INVENTORY_MAX_RUN_TARGETS (what one run may target) or `limit`. */
  async searchIds(
    actor: Actor,
    scope: SearchScope,
    filter: DeviceFilter,
    limit?: number,
  ): Promise<{ ids: string[]; total: number; truncated: boolean; limit: number }> {
    const cap = Math.min(limit ?? this.maxTargets, this.maxTargets);
    const { ids, total } = await this.repo.ids(await this.#scoped(actor, scope), filter, cap);
    return { ids, total, truncated: total > ids.length, limit: cap };
  }

  async create(actor: Actor, input: DeviceInput, duplicatedFrom?: string): Promise<DeviceView> {
    return this.#lifecycle.guardNames(() =>
      this.repo.transaction(async (trx) => {
        const fields = fieldsOf(input);
        if ((await this.repo.liveNames(trx, actor.org.id, [fields.name])).size > 0) throw nameTaken();
        if (fields.site_id) await this.#checkSite(trx, actor.org.id, fields.site_id);
        const row = await this.repo.insert(trx, { ...fields, org_id: actor.org.id, created_by: actor.sub });
        await this.#lifecycle.record(actor, trx, 'entity.created', MANAGE, row, {
          snapshot: snapshot(row),
          ...(duplicatedFrom ? { duplicated_from: duplicatedFrom } : {}),
        });
        return deviceView(row, actor.org.id);
      }),
    );
  }

  /**
   * A local copy in the active organization under a new name: the source's own fields without its
   * provider link or overlay. A source of the shared organization loses its site (sites are per organization).
   */
  async duplicate(actor: Actor, id: string, name: string): Promise<DeviceView> {
    const source = await this.get(actor, id);
    const { hostname, platform, role, serial, tags, attributes } = source;
    return this.create(
      actor,
      { name, hostname, platform, role, serial, tags, attributes, site_id: source.shared ? null : source.site_id },
      source.id,
    );
  }

  /** PUT: every editable field takes the body's value (absent optional fields are cleared). */
  /** `ifMatch`: the request's `If-Match`, held against the device's entity tag before anything changes. */
  async replace(actor: Actor, id: string, input: DeviceInput, ifMatch?: string): Promise<DeviceView> {
    if (!isUuid(id)) throw notFound(WHAT);
    const orgIds = await this.#readable(actor);
    return this.#lifecycle.guardNames(() =>
      this.repo.transaction(async (trx) => {
        const before = writable(await this.repo.lock(trx, orgIds, id), actor.org.id, WHAT, true);
        refuseIfChanged(ifMatch, () => deviceView(before, actor.org.id), 'device');
        const after = fieldsOf(input);
        const changed = changes(snapshot(before), after as unknown as Record<string, unknown>, EDITABLE);
        if (Object.keys(changed).length === 0) return deviceView(before, actor.org.id);
        if (before.provider_id !== null) throw providerManaged(Object.keys(changed), `/devices/${id}/overlay`);
        if (changed.name && (await this.repo.liveNames(trx, actor.org.id, [after.name], id)).size > 0) throw nameTaken();
        if (changed.site_id && after.site_id) await this.#checkSite(trx, actor.org.id, after.site_id);
        const fields = Object.fromEntries(
          Object.keys(changed).map((key) => [key, after[key as keyof DeviceFields]]),
        ) as Partial<DeviceFields>;
        const row = await this.repo.update(trx, id, fields, actor.sub);
        await this.#lifecycle.record(actor, trx, 'entity.updated', MANAGE, row, { changes: changed });
        return deviceView(row, actor.org.id);
      }),
    );
  }

  async setOverlay(actor: Actor, id: string, patch: OverlayPatch): Promise<DeviceView> {
    if (!isUuid(id)) throw notFound(WHAT);
    const orgIds = await this.#readable(actor);
    return this.repo.transaction(async (trx) => {
      const before = writable(await this.repo.lock(trx, orgIds, id), actor.org.id, WHAT, true);
      const overlay: Record<string, unknown> = { ...before.overlay_json };
      for (const [key, value] of Object.entries(patch)) {
        if (value === null) delete overlay[key];
        else if (value !== undefined) overlay[key] = value;
      }
      if (canonical(overlay) === canonical(before.overlay_json)) return deviceView(before, actor.org.id);
      const row = await this.repo.setOverlay(trx, id, overlay, actor.sub);
      await this.#lifecycle.record(actor, trx, 'entity.updated', ANNOTATE, row, {
        overlay: { old: overlayOf(before), new: overlayOf(row) },
      });
      return deviceView(row, actor.org.id);
    });
  }

  async remove(actor: Actor, id: string): Promise<void> {
    await this.#lifecycle.remove(actor, id);
  }

  async restore(actor: Actor, id: string): Promise<DeviceView> {
    return deviceView(await this.#lifecycle.restore(actor, id), actor.org.id);
  }

  async purge(actor: Actor, id: string): Promise<void> {
    await this.#lifecycle.purge(actor, id);
  }

  async bulkDelete(actor: Actor, ids: readonly string[]): Promise<{ results: BulkResult[] }> {
    return this.#lifecycle.bulkDelete(actor, ids);
  }

  async bulkRestore(actor: Actor, ids: readonly string[]): Promise<{ results: BulkResult[] }> {
    return this.#lifecycle.bulkRestore(actor, ids);
  }

  async bulkPurge(actor: Actor, ids: readonly string[]): Promise<{ results: BulkResult[] }> {
    return this.#lifecycle.bulkPurge(actor, ids);
  }

  /** A device's site is a live site of its own organization, held until the transaction ends. */
  async #checkSite(trx: DevicesTx, orgId: string, siteId: string): Promise<void> {
    if (!(await this.sites.holdLive(trx, orgId, siteId)))
      throw problems.validation([{ path: 'site_id', message: 'must name a live site of this organization' }]);
  }

  #readable(actor: Actor): Promise<string[]> {
    return this.access.readableOrgIds(actor.org.id);
  }

  async #scoped(actor: Actor, scope: SearchScope): Promise<string[]> {
    const readable = await this.#readable(actor);
    if (scope === 'own') return [actor.org.id];
    if (scope === 'shared') return readable.filter((id) => id !== actor.org.id);
    return readable;
  }
}
