import type { IncomingHttpHeaders } from 'node:http';
import { problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import { mayAccess, slugOfRegistryScope } from '../../../shared/registry/registry-namespaces.js';
import { readRegistryRequest, type RegistryRequest } from '../../../shared/registry/registry-request.js';
import { REGISTRY_PROXY_SECRET_HEADER } from '../../../shared/api/registry.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import type { OrgAccessRepo } from '../../authz/org-access-repo.js';
import { internalTokenMatches } from '../../auth/internal-token.js';
import { actAsRunToken, type RunTokenGrant } from '../run-tokens/run-token-verifier.js';
import { basicPassword } from './basic-password.js';
import type { CachedRunTokens } from './run-token-cache.js';

const CHALLENGE = 'Basic realm="svc registry", charset="UTF-8"';

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
}

const refusals = {
  missing: () => problem('unauthenticated', 'Send a registry run token as the Basic password.', {}, { 'WWW-Authenticate': CHALLENGE }),
  notLive: () => problem('invalid_token', 'Not a live registry run token.', {}, { 'WWW-Authenticate': CHALLENGE }),
  denied: (detail: string) => problem('forbidden', detail),
};

/**
 * `GET /registry/authorize`, asked by the registry's proxy before every registry request: invisible
 * (404) without the proxy's secret, then the run token (401), then what the original request asks of
 * which repository (403 or allowed). Access-control.md, Registry authorization.
 */
export class RegistryAuthorizer {
  constructor(
    private readonly proxySecret: string | undefined,
    private readonly tokens: CachedRunTokens,
    private readonly orgAccess: OrgAccessRepo,
    private readonly audit: AuditWriter,
  ) {}

  /** Resolves when allowed; throws the refusal's Problem. Synchronous on the warm path (a cached token). */
  authorize(headers: IncomingHttpHeaders, audit: AuditContext | undefined): void | Promise<void> {
    if (this.proxySecret === undefined || !internalTokenMatches(headers[REGISTRY_PROXY_SECRET_HEADER], this.proxySecret)) {
      throw problems.notFound();
    }
    const token = basicPassword(header(headers, 'authorization'));
    if (token === undefined) throw refusals.missing();
    const asked = readRegistryRequest(header(headers, 'x-original-method') ?? '', header(headers, 'x-original-uri') ?? '');
    const grant = this.tokens.verify(token);
    if (grant instanceof Promise) return grant.then((live) => this.decide(live, asked, audit));
    return this.decide(grant, asked, audit);
  }

  private decide(grant: RunTokenGrant | undefined, asked: RegistryRequest, audit: AuditContext | undefined): void | Promise<void> {
    if (grant === undefined || grant.kind !== 'registry' || slugOfRegistryScope(grant.scope) !== grant.orgSlug) throw refusals.notLive();
    // What the request records (its entries, the access log) is the token's: its run, step and organization.
    if (audit) actAsRunToken(audit, grant);
    if (asked.kind === 'base') return;
    if (asked.kind === 'refused') return this.refuse(grant, asked.reason, audit);
    const shared = this.cachedSharedSlug();
    if (shared !== undefined) return this.check(grant, asked, shared === null ? undefined : shared, audit);
    return this.sharedSlug().then((slug) => this.check(grant, asked, slug, audit));
  }

  private check(
    grant: RunTokenGrant,
    asked: Extract<RegistryRequest, { kind: 'access' }>,
    sharedOrgSlug: string | undefined,
    audit: AuditContext | undefined,
  ): void | Promise<void> {
    const scope = { orgSlug: grant.orgSlug, sharedOrgSlug };
    const refused = asked.needs.find((need) => !mayAccess(scope, need));
    if (refused) return this.refuse(grant, `${refused.action} ${refused.repository}`, audit);
    // Pulls leave no audit entry; a push is recorded once, when it publishes its manifest.
    if (asked.publishes === undefined) return undefined;
    const repository = asked.needs[0]!.repository;
    return this.audit
      .record(audit, this.entry(grant, 'image.pushed', 'success', { repository, reference: asked.publishes }))
      .then(() => undefined);
  }

  private async refuse(grant: RunTokenGrant, what: string, audit: AuditContext | undefined): Promise<never> {
    await this.audit.record(audit, this.entry(grant, 'registry.denied', 'denied', { asked: what }));
    throw refusals.denied(`A run token of ${grant.orgSlug} may not ${what}.`);
  }

  private entry(grant: RunTokenGrant, eventType: string, outcome: 'success' | 'denied', details: Record<string, unknown>) {
    return {
      eventType,
      action: 'registry:authorize',
      resourceType: 'registry',
      outcome,
      orgId: grant.orgId,
      details,
    } as const;
  }

  /** The shared organization's slug from the caches (null: there is none); undefined when a query is needed. */
  private cachedSharedSlug(): string | null | undefined {
    const id = this.orgAccess.cachedSharedOrgId();
    if (id === null || id === undefined) return id;
    const org = this.orgAccess.cachedOrg(id);
    return org === undefined ? undefined : (org?.slug ?? null);
  }

  private async sharedSlug(): Promise<string | undefined> {
    const id = await this.orgAccess.sharedOrgId();
    return id === null ? undefined : (await this.orgAccess.org(id))?.slug;
  }
}
