import { pickSecretValue } from '../../../shared/secrets/pick-value.js';
import { parseSecretReference, secretLocation } from '../../../shared/secrets/reference.js';
import { NotifiedCache } from '../../db/notified-cache.js';
import { isUuid } from '../../../shared/ids.js';
import type { BackendRegistry } from './backends/backend-registry.js';
import type { SecretBackendsRepo } from './secret-backends-repo.js';
import { SecretNotFoundError, SecretReferenceError, type SecretResolver, type SecretSummary } from './secret-resolver.js';
import type { SecretRecord, SecretsRepo } from './secrets-repo.js';

/** The slug of an organization by id (its prefix in every backend). */
export type OrgSlugOf = (orgId: string) => Promise<string | undefined>;

/**
 * Secrets as other domains use them. A reference resolves only within the caller's organization: a
 * location naming another organization's prefix is refused before anything is looked up, so the answer
 * says nothing about what exists there.
 */
export class SecretsResolver implements SecretResolver {
  constructor(
    private readonly secrets: SecretsRepo,
    private readonly backends: SecretBackendsRepo,
    private readonly registry: BackendRegistry,
    private readonly orgSlugOf: OrgSlugOf,
    private readonly builtinFolders: NotifiedCache<Readonly<Record<string, string>>> = new NotifiedCache(),
  ) {}

  async find(orgId: string, secretId: string): Promise<SecretSummary | undefined> {
    if (!isUuid(orgId) || !isUuid(secretId)) return undefined;
    const record = await this.secrets.findOfOrg(orgId, secretId);
    return record ? { id: record.id, org_id: record.org_id, name: record.name } : undefined;
  }

  async readFolder(secretId: string): Promise<Readonly<Record<string, string>>> {
    const record = isUuid(secretId) ? await this.secrets.findById(secretId) : undefined;
    if (!record) throw new SecretNotFoundError('no secret has this id');
    return this.#read(record);
  }

  async readFolderCached(secretId: string): Promise<Readonly<Record<string, string>>> {
    const cached = this.builtinFolders.get(secretId);
    if (cached) return cached;
    const generation = this.builtinFolders.generation;
    const record = isUuid(secretId) ? await this.secrets.findById(secretId) : undefined;
    if (!record) throw new SecretNotFoundError('no secret has this id');
    const folder = await this.#read(record);
    if (record.backend_type === 'builtin') this.builtinFolders.set(secretId, folder, generation);
    return folder;
  }

  async resolveReference(orgId: string, reference: string): Promise<string> {
    const parsed = parseSecretReference(reference);
    if (!parsed) throw new SecretReferenceError('malformed', 'not a secret reference');
    let record: SecretRecord | undefined;
    if (parsed.kind === 'name') {
      record = isUuid(orgId) ? await this.secrets.findByName(orgId, parsed.name) : undefined;
    } else {
      const slug = isUuid(orgId) ? await this.orgSlugOf(orgId) : undefined;
      if (parsed.orgSlug !== slug)
        throw new SecretReferenceError('other_organization', "the reference names another organization's secrets");
      if (!(await this.backends.findByScheme(parsed.scheme)))
        throw new SecretReferenceError('unknown_scheme', `no secret backend has the scheme "${parsed.scheme}"`);
      record = await this.secrets.findByLocation(orgId, parsed.scheme, parsed.path);
    }
    if (!record) throw new SecretReferenceError('not_found', 'no secret of the organization matches the reference');
    const folder = await this.#read(record);
    if (parsed.key !== undefined) {
      if (!Object.hasOwn(folder, parsed.key)) throw new SecretReferenceError('key_missing', `the secret has no key "${parsed.key}"`);
      return folder[parsed.key]!;
    }
    const value = pickSecretValue(folder);
    if (value === undefined)
      throw new SecretReferenceError(
        'key_ambiguous',
        'the secret has several keys and none of the preferred ones: add #<key> to the reference',
      );
    return value;
  }

  #read(record: SecretRecord): Promise<Record<string, string>> {
    return this.registry.for({ id: record.backend_id, type: record.backend_type }).readFolder(secretLocation(record.org_slug, record.path));
  }
}
