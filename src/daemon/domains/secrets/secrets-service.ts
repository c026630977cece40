import { SECRET_MAX_KEYS, isSafeSecretPath } from '../../../shared/secrets/names.js';
import { orgSecretsPrefix, secretLocation, secretReference } from '../../../shared/secrets/reference.js';
import type { z } from 'zod';
import type {
  createSecretBody,
  DiscoveredSecretView,
  duplicateSecretBody,
  SecretDetailView,
  SecretProviderView,
  SecretView,
  updateSecretBody,
} from '../../../shared/api/secrets.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import { problems } from '../../../shared/api/problems.js';
import type { Logger } from '../../logging/logger.js';
import { isUuid } from '../../../shared/ids.js';
import type { BackendRegistry } from './backends/backend-registry.js';
import { isAvailableType } from './backends/backend-types.js';
import type { SecretBackend } from './backends/secret-backend.js';
import type { SecretBackendRow, SecretBackendsRepo } from './secret-backends-repo.js';
import { secretProblems } from './secret-problems.js';
import { SecretBackendError } from './secret-resolver.js';
import type { SecretRecord, SecretsRepo, SecretsTx } from './secrets-repo.js';
import { providerView, secretDetailView, secretView } from './views.js';

export interface OrgRef {
  readonly id: string;
  readonly slug: string;
}

export interface Page {
  readonly limit: number;
  readonly offset: number;
}

/** A secret to create, as its route parsed it; without `values` it adopts a folder already in the backend (a discovered one). */
export type CreateSecretInput = z.output<typeof createSecretBody>;

export type UpdateSecretInput = z.output<typeof updateSecretBody>;

const ACTION = 'secret:manage';

/**
 * Secrets of one organization (`secret:*`): metadata in the `secrets` table, values in the secret's
 * backend. A write of values happens inside the database transaction of the row and its audit entry (the
 * built-in backend joins it). Values appear in no answer, log line or audit entry: only key names do.
 */
export class SecretsService {
  constructor(
    private readonly repo: SecretsRepo,
    private readonly backends: SecretBackendsRepo,
    private readonly registry: BackendRegistry,
    private readonly audit: AuditWriter,
    private readonly log: Logger,
  ) {}

  async list(
    org: OrgRef,
    page: Page & { backendId?: string | undefined; name?: string | undefined },
  ): Promise<{ items: SecretView[]; total: number; limit: number; offset: number }> {
    const { rows, total } = await this.repo.list(org.id, page);
    return { items: rows.map(secretView), total, limit: page.limit, offset: page.offset };
  }

  async get(org: OrgRef, id: string): Promise<SecretDetailView> {
    const record = await this.#find(org, id);
    const folder = await this.#live(record, () => this.#backend(record).readFolder(this.#location(record)));
    return secretDetailView(record, Object.keys(folder));
  }

  async providers(org: OrgRef): Promise<{ items: SecretProviderView[] }> {
    return { items: (await this.backends.all()).filter((b) => isAvailableType(b.type)).map((b) => providerView(b, org.slug)) };
  }

  /** Folders under the organization's prefix in each backend this build serves that no secret of the organization refers to. */
  async discovered(org: OrgRef, page: Page): Promise<{ items: DiscoveredSecretView[]; total: number; limit: number; offset: number }> {
    const prefix = orgSecretsPrefix(org.slug);
    const found: DiscoveredSecretView[] = [];
    for (const backend of (await this.backends.all()).filter((b) => isAvailableType(b.type))) {
      const locations = await this.#guard({ backend_id: backend.id }, () => this.registry.for(backend).listItems(prefix));
      const known = await this.repo.pathsIn(org.id, backend.id);
      for (const location of locations) {
        const path = location.slice(prefix.length);
        if (known.has(path) || !isSafeSecretPath(path)) continue;
        found.push({
          backend: { id: backend.id, name: backend.name, scheme: backend.scheme },
          path,
          reference: secretReference(backend.scheme, org.slug, path),
        });
      }
    }
    return { items: found.slice(page.offset, page.offset + page.limit), total: found.length, limit: page.limit, offset: page.offset };
  }

  async create(org: OrgRef, input: CreateSecretInput, context?: AuditContext): Promise<SecretDetailView> {
    const backend = await this.#backendForCreate(input.backend_id);
    const path = input.path ?? input.name;
    if (!isSafeSecretPath(path))
      throw problems.validation([
        { path: input.path === undefined ? 'name' : 'path', message: 'must be a relative folder path without empty, "." or ".." segments' },
      ]);
    const location = secretLocation(org.slug, path);
    const store = this.registry.for(backend);
    return this.#guard({ backend_id: backend.id }, () =>
      this.repo.transaction(async (trx) => {
        const id = await this.#insert(trx, org, {
          name: input.name,
          description: input.description ?? null,
          backend_id: backend.id,
          path,
          created_by: context?.subject ?? null,
        });
        let keys: string[];
        if (input.values) {
          await store.writeFolder(location, input.values, 'replace', { tx: trx });
          keys = Object.keys(input.values);
        } else {
          keys = Object.keys(await store.readFolder(location, { tx: trx }));
          if (keys.length === 0)
            throw problems.validation([{ path: 'values', message: 'required unless path names a folder that exists in the backend' }]);
        }
        const record = (await this.repo.findOfOrg(org.id, id, trx))!;
        await this.#audit(context, 'entity.created', record, { keys: [...keys].sort(), adopted: input.values === undefined }, trx);
        return secretDetailView(record, keys);
      }),
    );
  }

  /** `values` set or replace the keys they name; `remove_keys` removes keys; other keys stay as they are. */
  async update(org: OrgRef, id: string, input: UpdateSecretInput, context?: AuditContext): Promise<SecretDetailView> {
    if (!isUuid(id)) throw notFound();
    const values = input.values ?? {};
    const overlap = (input.remove_keys ?? []).filter((key) => Object.hasOwn(values, key));
    if (overlap.length > 0)
      throw problems.validation([{ path: 'remove_keys', message: `names keys also set in values: ${overlap.join(', ')}` }]);
    return this.repo.transaction(async (trx) => {
      const record = await this.repo.lockOfOrg(trx, org.id, id);
      if (!record) throw notFound();
      const store = this.#backend(record);
      const location = this.#location(record);
      const current = await this.#live(record, () => store.readFolder(location, { tx: trx }));
      const removed = (input.remove_keys ?? []).filter((key) => Object.hasOwn(current, key));
      const next: Record<string, string> = { ...current };
      for (const key of removed) delete next[key];
      Object.assign(next, values);
      if (Object.keys(next).length === 0)
        throw problems.validation([{ path: 'remove_keys', message: 'a secret keeps at least one key (delete the secret instead)' }]);
      if (Object.keys(next).length > SECRET_MAX_KEYS)
        throw problems.validation([{ path: 'values', message: `a secret holds at most ${SECRET_MAX_KEYS} keys` }]);
      if (removed.length > 0) await this.#live(record, () => store.writeFolder(location, next, 'replace', { tx: trx }));
      else if (Object.keys(values).length > 0) await this.#live(record, () => store.writeFolder(location, values, 'merge', { tx: trx }));
      const descriptionChanged = input.description !== undefined && input.description !== record.description;
      const keysSet = Object.keys(values).sort();
      if (!descriptionChanged && keysSet.length === 0 && removed.length === 0) return secretDetailView(record, Object.keys(current));
      await this.repo.touch(trx, record.id, { description: input.description, updated_by: context?.subject ?? null });
      const after = (await this.repo.findOfOrg(org.id, record.id, trx))!;
      await this.#audit(
        context,
        'entity.updated',
        after,
        { keys_set: keysSet, keys_removed: removed.sort(), description_changed: descriptionChanged, keys: Object.keys(next).sort() },
        trx,
      );
      return secretDetailView(after, Object.keys(next));
    });
  }

  /** Hard delete: the folder in the backend, then the row (webhook endpoints lose the link by foreign key). */
  async remove(org: OrgRef, id: string, context?: AuditContext): Promise<void> {
    if (!isUuid(id)) throw notFound();
    await this.repo.transaction(async (trx) => {
      const record = await this.repo.lockOfOrg(trx, org.id, id);
      if (!record) throw notFound();
      await this.#live(record, () => this.#backend(record).deleteFolder(this.#location(record), { tx: trx }));
      await this.repo.delete(trx, record.id);
      await this.#audit(context, 'entity.deleted', record, {}, trx);
    });
  }

  /** A new secret in the same backend holding a copy of the source's keys and values. */
  async duplicate(org: OrgRef, id: string, input: z.output<typeof duplicateSecretBody>, context?: AuditContext): Promise<SecretDetailView> {
    const source = await this.#find(org, id);
    const path = input.path ?? input.name;
    if (!isSafeSecretPath(path))
      throw problems.validation([
        { path: input.path === undefined ? 'name' : 'path', message: 'must be a relative folder path without empty, "." or ".." segments' },
      ]);
    const store = this.#backend(source);
    return this.#live(source, () =>
      this.repo.transaction(async (trx) => {
        const folder = await store.readFolder(this.#location(source), { tx: trx });
        if (Object.keys(folder).length === 0) throw problems.conflict('The secret to duplicate holds no keys in its backend.');
        const newId = await this.#insert(trx, org, {
          name: input.name,
          description: input.description !== undefined ? input.description : source.description,
          backend_id: source.backend_id,
          path,
          created_by: context?.subject ?? null,
        });
        await store.writeFolder(secretLocation(org.slug, path), folder, 'replace', { tx: trx });
        const record = (await this.repo.findOfOrg(org.id, newId, trx))!;
        await this.#audit(context, 'entity.created', record, { keys: Object.keys(folder).sort(), duplicated_from: source.id }, trx);
        return secretDetailView(record, Object.keys(folder));
      }),
    );
  }

  async #find(org: OrgRef, id: string): Promise<SecretRecord> {
    const record = isUuid(id) ? await this.repo.findOfOrg(org.id, id) : undefined;
    if (!record) throw notFound();
    return record;
  }

  async #backendForCreate(backendId: string | undefined): Promise<SecretBackendRow> {
    let backend: SecretBackendRow | undefined;
    if (backendId === undefined) {
      backend = await this.backends.findDefault();
      if (!backend) throw problems.validation([{ path: 'backend_id', message: 'required: no backend is the default' }]);
    } else {
      backend = await this.backends.find(backendId);
      if (!backend) throw problems.validation([{ path: 'backend_id', message: 'names no secret backend' }]);
    }
    if (!isAvailableType(backend.type)) throw secretProblems.unsupportedType(backend.type);
    return backend;
  }

  async #insert(
    trx: SecretsTx,
    org: OrgRef,
    row: { name: string; description: string | null; backend_id: string; path: string; created_by: string | null },
  ): Promise<string> {
    const clash = await this.repo.clash(trx, org.id, row.name, row.backend_id, row.path);
    if (clash === 'name') throw problems.conflict('A secret of this name exists in the organization.');
    if (clash === 'path') throw problems.conflict('Another secret of the organization uses this folder of the backend.');
    const id = await this.repo.insert(trx, { org_id: org.id, ...row });
    if (!id) throw problems.conflict('A secret of this name or folder exists in the organization.');
    return id;
  }

  #backend(record: SecretRecord): SecretBackend {
    return this.registry.for({ id: record.backend_id, type: record.backend_type });
  }

  #location(record: SecretRecord): string {
    return secretLocation(record.org_slug, record.path);
  }

  #live<T>(record: SecretRecord, work: () => Promise<T>): Promise<T> {
    return this.#guard({ secret_id: record.id, backend_id: record.backend_id }, work);
  }

  /** A backend failure becomes 503 `secret_backend_unavailable`; the cause goes to the log (it never holds a value). */
  async #guard<T>(subject: Record<string, string>, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof SecretBackendError)) throw error;
      this.log.warn(
        { ...subject, err: { message: error.message, cause: error.cause instanceof Error ? error.cause.message : undefined } },
        'secret backend failed',
      );
      throw secretProblems.backendUnavailable();
    }
  }

  async #audit(
    context: AuditContext | undefined,
    eventType: string,
    record: SecretRecord,
    details: Record<string, unknown>,
    trx: SecretsTx,
  ): Promise<void> {
    await this.audit.record(
      context,
      {
        eventType,
        action: ACTION,
        resourceType: 'secret',
        resourceId: record.id,
        outcome: 'success',
        orgId: record.org_id,
        details: { name: record.name, backend_id: record.backend_id, backend_scheme: record.backend_scheme, path: record.path, ...details },
      },
      trx,
    );
  }
}

function notFound() {
  return problems.resourceNotFound('Secret');
}
