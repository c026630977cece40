import { problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import type { ImageNamespaceList, ImageRepository, ImageRepositoryList, ImageUsage } from '../../../shared/api/registry.js';
import { GLOBAL_NAMESPACE, namespaceOf, orgNamespace } from '../../../shared/registry/registry-namespaces.js';
import { isRepositoryName } from '../../../shared/registry/registry-request.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import type { OrgAccessRepo } from '../../authz/org-access-repo.js';
import type { RegistryApi } from './registry-api.js';

interface OrgRef {
  readonly id: string;
  readonly slug: string;
}

/** What the caller's organization sees of the registry: its own namespace, the shared organization's, the global one. */
interface Visible {
  readonly own: string;
  readonly shared: string | undefined;
}

const TAG_LOOKUPS_AT_ONCE = 8;

const notFound = () => problems.resourceNotFound('Image repository');

/** The upstream host of a cache copy (`orgs/<slug>/<host>/…`), else null. */
function upstreamOf(repository: string): string | null {
  const parts = repository.split('/');
  const host = parts[0] === 'orgs' && parts.length >= 4 ? parts[2]! : undefined;
  return host !== undefined && (host.includes('.') || host === 'localhost') ? host : null;
}

async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

/** The image routes (`image:view|manage|manage_global`): the registry's own API read and deleted through; docs/registry.md. */
export class ImagesService {
  constructor(
    private readonly api: RegistryApi,
    private readonly orgAccess: OrgAccessRepo,
    private readonly audit: AuditWriter,
    private readonly orgIdsBySlug: (slugs: readonly string[]) => Promise<Map<string, string>>,
  ) {}

  async namespaces(org: OrgRef): Promise<ImageNamespaceList> {
    const visible = await this.visible(org);
    const counts = new Map<string, number>([[visible.own, 0]]);
    if (visible.shared) counts.set(visible.shared, 0);
    counts.set(GLOBAL_NAMESPACE, 0);
    for (const name of await this.api.repositories()) {
      const namespace = namespaceOf(name);
      if (namespace !== undefined && counts.has(namespace)) counts.set(namespace, counts.get(namespace)! + 1);
    }
    return {
      items: [...counts].map(([name, repositories]) => ({
        name,
        kind: name === visible.own ? ('organization' as const) : name === GLOBAL_NAMESPACE ? ('global' as const) : ('shared' as const),
        repositories,
        writable: name === visible.own,
      })),
    };
  }

  async repositories(
    org: OrgRef,
    filter: { namespace?: string | undefined; q?: string | undefined; limit: number; offset: number },
  ): Promise<ImageRepositoryList> {
    const visible = await this.visible(org);
    const readable = new Set([visible.own, GLOBAL_NAMESPACE, ...(visible.shared ? [visible.shared] : [])]);
    const names = (await this.api.repositories())
      .filter((name) => {
        const namespace = namespaceOf(name);
        if (namespace === undefined || !readable.has(namespace)) return false;
        if (filter.namespace !== undefined && namespace !== filter.namespace) return false;
        return filter.q === undefined || name.includes(filter.q);
      })
      .sort();
    return {
      items: names
        .slice(filter.offset, filter.offset + filter.limit)
        .map((name) => ({ name, namespace: namespaceOf(name)!, upstream: upstreamOf(name) })),
      total: names.length,
      limit: filter.limit,
      offset: filter.offset,
    };
  }

  async repository(org: OrgRef, name: string): Promise<ImageRepository> {
    await this.readable(org, name);
    const tags = await this.api.tags(name);
    if (tags === undefined) throw notFound();
    const digests = await mapLimited(tags, TAG_LOOKUPS_AT_ONCE, (tag) => this.api.manifestDigest(name, tag));
    return {
      name,
      namespace: namespaceOf(name)!,
      upstream: upstreamOf(name),
      tags: tags.map((tag, index) => ({ name: tag, digest: digests[index] ?? null })),
    };
  }

  /** Deletes a tag of a repository in the organization's own namespace (cache copies included). */
  async deleteTag(org: OrgRef, name: string, tag: string, context: AuditContext | undefined): Promise<void> {
    await this.writable(org, name);
    await this.removeTag(name, tag, context, 'image:manage', org.id);
  }

  /** Deletes every tag of a repository in the organization's own namespace; the blobs go at the registry's garbage collection. */
  async deleteRepository(org: OrgRef, name: string, context: AuditContext | undefined): Promise<void> {
    await this.writable(org, name);
    await this.removeRepository(name, context, 'image:manage', org.id);
  }

  async deleteTagAnywhere(name: string, tag: string, context: AuditContext | undefined): Promise<void> {
    if (!isRepositoryName(name)) throw notFound();
    await this.removeTag(name, tag, context, 'image:manage_global', null);
  }

  async deleteRepositoryAnywhere(name: string, context: AuditContext | undefined): Promise<void> {
    if (!isRepositoryName(name)) throw notFound();
    await this.removeRepository(name, context, 'image:manage_global', null);
  }

  /** Repositories and tags per namespace, platform-wide, with the organization each `orgs/<slug>` belongs to. */
  async usage(): Promise<ImageUsage> {
    const names = await this.api.repositories();
    const tagCounts = await mapLimited(names, TAG_LOOKUPS_AT_ONCE, async (name) => (await this.api.tags(name))?.length ?? 0);
    const byNamespace = new Map<string, { repositories: number; tags: number }>();
    names.forEach((name, index) => {
      const namespace = namespaceOf(name) ?? name.split('/')[0]!;
      const entry = byNamespace.get(namespace) ?? { repositories: 0, tags: 0 };
      entry.repositories += 1;
      entry.tags += tagCounts[index]!;
      byNamespace.set(namespace, entry);
    });
    const slugs = [...byNamespace.keys()].filter((n) => n.startsWith('orgs/')).map((n) => n.slice('orgs/'.length));
    const orgIds = await this.orgIdsBySlug(slugs);
    const namespaces = [...byNamespace]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, counts]) => ({ name, org_id: name.startsWith('orgs/') ? (orgIds.get(name.slice(5)) ?? null) : null, ...counts }));
    return {
      namespaces,
      repositories: names.length,
      tags: tagCounts.reduce((sum, n) => sum + n, 0),
    };
  }

  private async removeTag(
    name: string,
    tag: string,
    context: AuditContext | undefined,
    action: string,
    orgId: string | null,
  ): Promise<void> {
    const digest = await this.api.manifestDigest(name, tag);
    if (digest === undefined || !(await this.api.deleteManifest(name, digest))) throw problems.resourceNotFound('Image tag');
    await this.record(context, 'image.tag_deleted', action, orgId, { repository: name, tag, digest });
  }

  private async removeRepository(name: string, context: AuditContext | undefined, action: string, orgId: string | null): Promise<void> {
    const tags = await this.api.tags(name);
    if (tags === undefined) throw notFound();
    const digests = new Set(
      (await mapLimited(tags, TAG_LOOKUPS_AT_ONCE, (tag) => this.api.manifestDigest(name, tag))).filter((d) => d !== undefined),
    );
    for (const digest of digests) await this.api.deleteManifest(name, digest);
    await this.record(context, 'image.repository_deleted', action, orgId, { repository: name, tags, digests: [...digests] });
  }

  private async record(
    context: AuditContext | undefined,
    eventType: string,
    action: string,
    orgId: string | null,
    details: Record<string, unknown>,
  ) {
    await this.audit.record(context, {
      eventType,
      action,
      resourceType: 'image_repository',
      resourceId: String(details.repository),
      outcome: 'success',
      ...(orgId === null ? {} : { orgId }),
      details,
    });
  }

  private async visible(org: OrgRef): Promise<Visible> {
    const sharedId = await this.orgAccess.sharedOrgId();
    const shared = sharedId === null || sharedId === org.id ? undefined : await this.orgAccess.org(sharedId);
    return { own: orgNamespace(org.slug), shared: shared ? orgNamespace(shared.slug) : undefined };
  }

  /** 404 for a name outside what the organization may read (another organization's looks like none). */
  private async readable(org: OrgRef, name: string): Promise<Visible> {
    if (!isRepositoryName(name)) throw notFound();
    const visible = await this.visible(org);
    const namespace = namespaceOf(name);
    if (namespace !== visible.own && namespace !== visible.shared && namespace !== GLOBAL_NAMESPACE) throw notFound();
    return visible;
  }

  /** Only the organization's own namespace may be changed: the shared one answers 403 `shared_read_only`, the global one 403. */
  private async writable(org: OrgRef, name: string): Promise<void> {
    const visible = await this.readable(org, name);
    const namespace = namespaceOf(name);
    if (namespace === visible.own) return;
    if (namespace === GLOBAL_NAMESPACE)
      throw problem('forbidden', "The global namespace is the platform's: its admins delete through /platform/images.");
    throw problem('shared_read_only', "The shared organization's images are read-only to other organizations.");
  }
}
