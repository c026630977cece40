import type {
  CreateRegistryCredentialBody,
  RegistryCredential,
  RegistryCredentialList,
  RegistryCredentialTest,
  UpdateRegistryCredentialBody,
} from '../../../shared/api/registry.js';
import { problems } from '../../../shared/api/problems.js';
import { isUuid } from '../../../shared/ids.js';
import { parseSecretReference } from '../../../shared/secrets/reference.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import { OutboundError } from '../../../shared/net/outbound-http.js';
import { SecretReferenceError, type SecretResolver } from '../secrets/secret-resolver.js';
import { secretProblems } from '../secrets/secret-problems.js';
import { credentialView } from './credential-view.js';
import type { CredentialFilter, RegistryCredentialRow, RegistryCredentialsRepo } from './credentials-repo.js';
import { loginToUpstream, type UpstreamHttp } from './upstream-login.js';

interface OrgRef {
  readonly id: string;
  readonly slug: string;
}

const RESOURCE = 'registry_credential';
const MANAGE = 'registry_credential:manage';

const notFound = () => problems.resourceNotFound('Registry credential');

function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}

/** What the guard's refusal means to a login test. */
function outboundFailure(error: unknown): RegistryCredentialTest | undefined {
  if (!(error instanceof OutboundError)) return undefined;
  const { reason } = error;
  const refused = reason === 'address_not_allowed' || reason === 'scheme_not_allowed' || reason === 'malformed_url';
  return {
    ok: false,
    outcome: refused ? 'address_not_allowed' : 'unreachable',
    http_status: null,
    detail: refused ? `The upstream's address is not allowed (${reason}).` : `The upstream could not be reached (${reason}).`,
  };
}

/**
 * The API base of a registry named by its host: `https://<registry>`, except Docker Hub, whose images are
 * named `docker.io/…` but whose API answers at registry-1.docker.io (docker.io itself is no registry API).
 */
export function defaultRegistryUrl(registry: string): string {
  return registry === 'docker.io' ? 'https://registry-1.docker.io' : `https://${registry}`;
}

/** Registry credentials of the active organization (`registry_credential:view|manage|test`); docs/registry.md. */
export class RegistryCredentialsService {
  constructor(
    private readonly repo: RegistryCredentialsRepo,
    private readonly audit: AuditWriter,
    private readonly secrets: SecretResolver,
    private readonly upstream: UpstreamHttp,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async list(org: OrgRef, filter: CredentialFilter): Promise<RegistryCredentialList> {
    const { rows, total } = await this.repo.list(org.id, filter);
    return { items: rows.map(credentialView), total, limit: filter.limit, offset: filter.offset };
  }

  async get(org: OrgRef, id: string): Promise<RegistryCredential> {
    return credentialView(await this.found(org, id));
  }

  async create(org: OrgRef, body: CreateRegistryCredentialBody, context: AuditContext | undefined): Promise<RegistryCredential> {
    checkPasswordRef(org, body.password_ref);
    try {
      return await this.repo.transaction(async (trx) => {
        const row = await this.repo.insert(trx, {
          org_id: org.id,
          registry: body.registry,
          url: body.url ?? defaultRegistryUrl(body.registry),
          username: body.username,
          password_ref: body.password_ref,
          description: body.description ?? null,
          created_by: context?.subject ?? null,
          updated_by: context?.subject ?? null,
        });
        await this.record(trx, context, 'entity.created', row, { credential: auditView(row) });
        return credentialView(row);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw problems.conflict(`The organization already has a credential for ${body.registry}.`);
      throw error;
    }
  }

  async update(
    org: OrgRef,
    id: string,
    body: UpdateRegistryCredentialBody,
    context: AuditContext | undefined,
  ): Promise<RegistryCredential> {
    if (body.password_ref !== undefined) checkPasswordRef(org, body.password_ref);
    if (!isUuid(id)) throw notFound();
    return this.repo.transaction(async (trx) => {
      if (!(await this.repo.lock(trx, org.id, id))) throw notFound();
      const change: Record<string, unknown> = { updated_by: context?.subject ?? null };
      for (const field of ['url', 'username', 'password_ref', 'description'] as const) {
        if (body[field] !== undefined) change[field] = body[field];
      }
      const row = await this.repo.update(trx, id, change);
      await this.record(trx, context, 'entity.updated', row, { changed: Object.keys(body).sort(), credential: auditView(row) });
      return credentialView(row);
    });
  }

  async remove(org: OrgRef, id: string, context: AuditContext | undefined): Promise<void> {
    if (!isUuid(id)) throw notFound();
    await this.repo.transaction(async (trx) => {
      const row = await this.repo.lock(trx, org.id, id);
      if (!row) throw notFound();
      await this.repo.remove(trx, id);
      await this.record(trx, context, 'entity.deleted', row, { credential: auditView(row) });
    });
  }

  /** Logs in to the upstream for real, through the outbound guard, with the password its reference resolves to. */
  async test(org: OrgRef, id: string, context: AuditContext | undefined): Promise<RegistryCredentialTest> {
    const row = await this.found(org, id);
    const outcome = await this.login(org, row);
    await this.repo.recordTest(org.id, row.id, outcome.ok, this.now());
    await this.audit.record(context, {
      eventType: 'registry_credential.tested',
      action: 'registry_credential:test',
      resourceType: RESOURCE,
      resourceId: row.id,
      outcome: outcome.ok ? 'success' : 'failure',
      orgId: org.id,
      details: { registry: row.registry, outcome: outcome.outcome, http_status: outcome.http_status },
    });
    return outcome;
  }

  private async login(org: OrgRef, row: RegistryCredentialRow): Promise<RegistryCredentialTest> {
    let password: string;
    try {
      password = await this.secrets.resolveReference(org.id, row.password_ref);
    } catch (error) {
      if (error instanceof SecretReferenceError) {
        return {
          ok: false,
          outcome: 'secret_unresolvable',
          http_status: null,
          detail: `The password reference cannot be resolved (${error.problem}).`,
        };
      }
      throw secretProblems.backendUnavailable();
    }
    try {
      return await loginToUpstream(this.upstream, { url: row.url, username: row.username, password });
    } catch (error) {
      const failure = outboundFailure(error);
      if (failure) return failure;
      throw error;
    }
  }

  private async found(org: OrgRef, id: string): Promise<RegistryCredentialRow> {
    const row = isUuid(id) ? await this.repo.find(org.id, id) : undefined;
    if (!row) throw notFound();
    return row;
  }

  private async record(
    trx: Parameters<Parameters<RegistryCredentialsRepo['transaction']>[0]>[0],
    context: AuditContext | undefined,
    eventType: string,
    row: RegistryCredentialRow,
    details: Record<string, unknown>,
  ): Promise<void> {
    await this.audit.record(
      context,
      { eventType, action: MANAGE, resourceType: RESOURCE, resourceId: row.id, outcome: 'success', orgId: row.org_id, details },
      trx,
    );
  }
}

/** The password must be a secret reference of the caller's organization (a location naming another is refused). */
function checkPasswordRef(org: OrgRef, reference: string): void {
  const parsed = parseSecretReference(reference);
  if (!parsed) throw problems.validation([{ path: 'password_ref', message: 'must be a secret reference, never a value' }]);
  if (parsed.kind === 'location' && parsed.orgSlug !== org.slug) {
    throw problems.validation([{ path: 'password_ref', message: "must name a secret of the caller's organization" }]);
  }
}

/** What the audit keeps of a credential: the reference, never a value. */
function auditView(row: RegistryCredentialRow): Record<string, unknown> {
  return { registry: row.registry, url: row.url, username: row.username, password_ref: row.password_ref };
}
