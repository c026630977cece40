import type { AuditWriter } from '../../audit/audit-writer.js';
import type { OrgAccessRepo } from '../../authz/org-access-repo.js';
import { type Problem, problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import { isUuid } from '../../../shared/ids.js';
import { refuseIfChanged } from '../../http/entity-tag.js';
import { changes, notFound, providerManaged, writable, type Actor } from './access.js';
import type { BulkResult, BulkStatus } from './bulk.js';
import { buildSiteTree } from './site-tree.js';
import type { SiteFields, SiteRow, SitesRepo, SitesTx } from './sites-repo.js';
import { Lifecycle } from './lifecycle.js';
import { siteView, type SiteTreeNode, type SiteView } from './views.js';

const WHAT = 'site';
const MANAGE = 'site:manage';
const PURGE = 'site:purge';
const EDITABLE = ['name', 'description', 'parent_id', 'address', 'tags'] as const;

export interface SiteInput {
  readonly name: string;
  readonly description?: string | null | undefined;
  readonly parent_id?: string | null | undefined;
  readonly address?: string | null | undefined;
  readonly tags?: readonly string[] | undefined;
}

export type SitePatch = Partial<SiteInput>;

export interface SiteListQuery {
  readonly q?: string | undefined;
  readonly parentId?: string | null | undefined;
  readonly includeDeleted: boolean;
  readonly limit: number;
  readonly offset: number;
}

function snapshot(row: SiteRow): Record<string, unknown> {
  return { name: row.name, description: row.description, parent_id: row.parent_id, address: row.address, tags: row.tags };
}

function nameTaken(): Problem {
  return problems.conflict('A live site of this organization already has this name.');
}

function badParent(message: string): Problem {
  return problems.validation([{ path: 'parent_id', message }]);
}

/** A site holding live child sites or devices is not deleted: 409 `site_in_use` with how many. */
async function refuseInUse(repo: SitesRepo, trx: SitesTx, row: SiteRow): Promise<void> {
  const children = (await repo.liveChildren(trx, [row.id])).length;
  const devices = (await repo.liveDeviceCounts(trx, [row.id])).get(row.id) ?? 0;
  if (children > 0 || devices > 0) {
    throw problem('site_in_use', 'The site still has live child sites or devices; move or delete them first.', {
      children,
      devices,
    });
  }
}

/**
 * Of the sites a bulk delete found, those that go: a site keeping a live child outside the request, or
 * a live device, stays (`in_use`), and so, in turn, does its parent.
 */
async function keepOutInUse(
  repo: SitesRepo,
  trx: SitesTx,
  candidates: readonly SiteRow[],
  verdicts: Map<string, BulkStatus>,
): Promise<SiteRow[]> {
  const candidateIds = candidates.map((row) => row.id);
  const children = await repo.liveChildren(trx, candidateIds);
  const withDevices = await repo.liveDeviceCounts(trx, candidateIds);
  const going = new Set(candidateIds);
  for (let settled = false; !settled;) {
    settled = true;
    for (const id of going) {
      if (withDevices.has(id) || children.some((child) => child.parent_id === id && !going.has(child.id))) {
        going.delete(id);
        verdicts.set(id, 'in_use');
        settled = false;
      }
    }
  }
  return candidates.filter((row) => going.has(row.id));
}

/**
 * Sites of the active organization, readable together with the shared organization's (`site:view`,
 * `site:manage`, `site:purge`). Every change is one transaction with its audit entries. The readable
 * organizations are looked up before a transaction opens: on the embedded database knex has a single
 * connection, which the open transaction holds, so a lookup inside it would wait forever.
 */
export class SitesService {
  readonly #lifecycle: Lifecycle<SiteRow>;

  constructor(
    private readonly repo: SitesRepo,
    private readonly access: OrgAccessRepo,
    audit: AuditWriter,
  ) {
    this.#lifecycle = new Lifecycle({
      what: WHAT,
      actions: { manage: MANAGE, purge: PURGE },
      repo,
      audit,
      readable: (actor) => this.#readable(actor),
      snapshot,
      nameTaken,
      link: { column: 'parent_id', of: (row) => row.parent_id, liveTargets: (trx, orgId, ids) => repo.liveIdsOfOrg(trx, orgId, ids) },
      inUse: {
        refuse: (trx, row) => refuseInUse(repo, trx, row),
        keepOut: (trx, candidates, verdicts) => keepOutInUse(repo, trx, candidates, verdicts),
      },
    });
  }

  async get(actor: Actor, id: string): Promise<SiteView> {
    const row = isUuid(id) ? await this.repo.findLive(await this.#readable(actor), id) : undefined;
    if (!row) throw notFound(WHAT);
    return siteView(row, actor.org.id);
  }

  async list(actor: Actor, query: SiteListQuery): Promise<{ items: SiteView[]; total: number; limit: number; offset: number }> {
    const orgIds = await this.#readable(actor);
    const { rows, total } = await this.repo.list({ orgId: actor.org.id, orgIds, ...query });
    return { items: rows.map((row) => siteView(row, actor.org.id)), total, limit: query.limit, offset: query.offset };
  }

  async tree(actor: Actor): Promise<{ items: SiteTreeNode[] }> {
    const rows = await this.repo.allLive(await this.#readable(actor));
    return { items: buildSiteTree(rows, actor.org.id) };
  }

  async create(actor: Actor, input: SiteInput, duplicatedFrom?: string): Promise<SiteView> {
    return this.#lifecycle.guardNames(() =>
      this.repo.transaction(async (trx) => {
        if ((await this.repo.liveNames(trx, actor.org.id, [input.name])).size > 0) throw nameTaken();
        if (input.parent_id && !(await this.repo.holdLive(trx, actor.org.id, input.parent_id)))
          throw badParent('must name a live site of this organization');
        const fields: SiteFields = {
          name: input.name,
          description: input.description ?? null,
          parent_id: input.parent_id ?? null,
          address: input.address ?? null,
          tags: input.tags ?? [],
        };
        const row = await this.repo.insert(trx, { ...fields, org_id: actor.org.id, created_by: actor.sub });
        await this.#lifecycle.record(actor, trx, 'entity.created', MANAGE, row, {
          snapshot: snapshot(row),
          ...(duplicatedFrom ? { duplicated_from: duplicatedFrom } : {}),
        });
        return siteView(row, actor.org.id);
      }),
    );
  }

  /** A copy in the active organization (the source may be the shared organization's) under a new name. */
  async duplicate(actor: Actor, id: string, name: string): Promise<SiteView> {
    const source = await this.get(actor, id);
    const parentKept = !source.shared && source.parent_id !== null;
    return this.create(
      actor,
      {
        name,
        description: source.description,
        address: source.address,
        tags: source.tags,
        parent_id: parentKept ? source.parent_id : null,
      },
      source.id,
    );
  }

  /** `ifMatch`: the request's `If-Match`, held against the site's entity tag before anything changes. */
  async update(actor: Actor, id: string, patch: SitePatch, ifMatch?: string): Promise<SiteView> {
    if (!isUuid(id)) throw notFound(WHAT);
    const orgIds = await this.#readable(actor);
    return this.#lifecycle.guardNames(() =>
      this.repo.transaction(async (trx) => {
        const before = writable(await this.repo.lock(trx, orgIds, id), actor.org.id, WHAT, true);
        refuseIfChanged(ifMatch, () => siteView(before, actor.org.id), 'site');
        const after = { ...snapshot(before), ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) };
        const changed = changes(snapshot(before), after, EDITABLE);
        if (Object.keys(changed).length === 0) return siteView(before, actor.org.id);
        if (before.provider_id !== null) throw providerManaged(Object.keys(changed));
        if (changed.name && (await this.repo.liveNames(trx, actor.org.id, [patch.name!], id)).size > 0) throw nameTaken();
        if (changed.parent_id && patch.parent_id) await this.#checkMove(trx, actor.org.id, id, patch.parent_id);
        const fields = Object.fromEntries(Object.keys(changed).map((key) => [key, after[key]])) as Partial<SiteFields>;
        const row = await this.repo.update(trx, id, fields, actor.sub);
        await this.#lifecycle.record(actor, trx, 'entity.updated', MANAGE, row, { changes: changed });
        return siteView(row, actor.org.id);
      }),
    );
  }

  async remove(actor: Actor, id: string): Promise<void> {
    await this.#lifecycle.remove(actor, id);
  }

  async restore(actor: Actor, id: string): Promise<SiteView> {
    return siteView(await this.#lifecycle.restore(actor, id), actor.org.id);
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

  /** A new parent must be a live site of the organization and not the site itself or one of its descendants. */
  async #checkMove(trx: SitesTx, orgId: string, id: string, parentId: string): Promise<void> {
    await this.repo.lockHierarchy(trx, orgId);
    if (parentId === id) throw badParent('a site cannot be its own parent');
    if (!(await this.repo.holdLive(trx, orgId, parentId))) throw badParent('must name a live site of this organization');
    if ((await this.repo.ancestorIds(trx, parentId)).includes(id)) throw badParent('would make the site its own ancestor');
  }

  #readable(actor: Actor): Promise<string[]> {
    return this.access.readableOrgIds(actor.org.id);
  }
}
