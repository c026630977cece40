import { splitSecretLocation } from '../../../shared/secrets/reference.js';
import type { z } from 'zod';
import type {
  createBackendBody,
  SecretBackendItemView,
  SecretBackendTestView,
  SecretBackendTypeView,
  SecretBackendView,
  updateBackendBody,
} from '../../../shared/api/secrets.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import { problems } from '../../../shared/api/problems.js';
import type { Logger } from '../../logging/logger.js';
import { isUuid } from '../../../shared/ids.js';
import type { BackendRegistry } from './backends/backend-registry.js';
import { BACKEND_TYPES, isAvailableType } from './backends/backend-types.js';
import type { BackendsTx, SecretBackendRow, SecretBackendsRepo } from './secret-backends-repo.js';
import { secretProblems } from './secret-problems.js';
import { SecretBackendError } from './secret-resolver.js';
import { backendView, isBuiltinBackend } from './views.js';

export type CreateBackendInput = z.output<typeof createBackendBody>;

const ACTION = 'secret_backend:manage';

/**
 * Secret backends (`secret_backend:*`, platform settings). Exactly one backend is the default at any time
 * (the one a secret is created in when it names none): the mark moves by setting it on another backend.
 */
export class SecretBackendsService {
  constructor(
    private readonly repo: SecretBackendsRepo,
    private readonly registry: BackendRegistry,
    private readonly audit: AuditWriter,
    private readonly log: Logger,
  ) {}

  types(): { items: readonly SecretBackendTypeView[] } {
    return { items: BACKEND_TYPES };
  }

  async list(page: {
    limit: number;
    offset: number;
  }): Promise<{ items: SecretBackendView[]; total: number; limit: number; offset: number }> {
    const { rows, total } = await this.repo.list(page);
    return { items: rows.map(backendView), total, limit: page.limit, offset: page.offset };
  }

  async get(id: string): Promise<SecretBackendView> {
    return backendView(await this.#find(id));
  }

  async create(input: CreateBackendInput, context?: AuditContext): Promise<SecretBackendView> {
    if (!isAvailableType(input.type)) throw secretProblems.unsupportedType(input.type);
    const actor = context?.subject ?? null;
    const id = await this.repo.transaction(async (trx) => {
      if (await this.repo.nameTaken(trx, input.name)) throw problems.conflict('A secret backend of this name exists.');
      const row = await this.repo.insert(trx, {
        name: input.name,
        type: input.type,
        scheme: input.scheme,
        config_json: input.config,
        created_by: actor,
      });
      if (!row) throw problems.conflict('A secret backend of this name or scheme exists.');
      if (input.is_default) await this.#makeDefault(trx, row.id, actor);
      await this.#audit(
        context,
        'entity.created',
        row.id,
        { name: row.name, type: row.type, scheme: row.scheme, is_default: input.is_default },
        trx,
      );
      return row.id;
    });
    return this.get(id);
  }

  async update(id: string, change: z.output<typeof updateBackendBody>, context?: AuditContext): Promise<SecretBackendView> {
    if (!isUuid(id)) throw notFound();
    const actor = context?.subject ?? null;
    await this.repo.transaction(async (trx) => {
      const before = await this.repo.lock(trx, id);
      if (!before) throw notFound();
      const changes: Record<string, { old: unknown; new: unknown }> = {};
      if (change.name !== undefined && change.name !== before.name) {
        if (await this.repo.nameTaken(trx, change.name, id)) throw problems.conflict('A secret backend of this name exists.');
        changes.name = { old: before.name, new: change.name };
      }
      if (change.is_default !== undefined && change.is_default !== before.is_default) {
        if (!change.is_default) throw problems.conflict('One backend is always the default: make another backend the default instead.');
        // A row of a type this build does not serve (written by another build) would take new secrets it cannot store.
        if (!isAvailableType(before.type)) throw secretProblems.unsupportedType(before.type);
        changes.is_default = { old: false, new: true };
      }
      if (Object.keys(changes).length === 0) return;
      if (changes.is_default) await this.#makeDefault(trx, id, actor);
      await this.repo.update(trx, id, { name: change.name, updated_by: actor });
      await this.#audit(context, 'entity.updated', id, { name: change.name ?? before.name, changes }, trx);
    });
    return this.get(id);
  }

  async remove(id: string, context?: AuditContext): Promise<void> {
    if (!isUuid(id)) throw notFound();
    await this.repo.transaction(async (trx) => {
      const row = await this.repo.lock(trx, id);
      if (!row) throw notFound();
      if (isBuiltinBackend(row)) throw problems.conflict('The built-in backend cannot be deleted.');
      if (row.is_default) throw problems.conflict('The default backend cannot be deleted: make another backend the default first.');
      const used = await this.repo.secretsUsing(trx, id);
      if (used > 0) throw problems.conflict(`${used} secret(s) use this backend: delete them first.`);
      await this.repo.delete(trx, id);
      await this.#audit(context, 'entity.deleted', id, { name: row.name, type: row.type, scheme: row.scheme }, trx);
    });
  }

  /** The backend's health as its implementation reports it; a failing backend is an answer (`ok: false`), not an error. */
  async test(id: string): Promise<SecretBackendTestView> {
    const row = await this.#find(id);
    try {
      return await this.registry.for(row).health();
    } catch (error) {
      this.log.warn(
        { backend_id: id, err: { message: error instanceof Error ? error.message : String(error) } },
        'secret backend health check failed',
      );
      return { ok: false, detail: 'the health check failed; the log has the cause' };
    }
  }

  /** Folder locations stored in the backend (across organizations: a platform admin's view), never values. */
  async items(
    id: string,
    query: { prefix?: string | undefined; limit: number; offset: number },
  ): Promise<{ items: SecretBackendItemView[]; total: number; limit: number; offset: number }> {
    const row = await this.#find(id);
    let locations: string[];
    try {
      locations = await this.registry.for(row).listItems(query.prefix ?? 'orgs/');
    } catch (error) {
      if (!(error instanceof SecretBackendError)) throw error;
      this.log.warn({ backend_id: id, err: { message: error.message } }, 'secret backend failed');
      throw secretProblems.backendUnavailable();
    }
    const items = locations.map((location) => {
      const place = splitSecretLocation(location);
      return { location, org_slug: place?.orgSlug ?? null, path: place?.path ?? null };
    });
    return { items: items.slice(query.offset, query.offset + query.limit), total: items.length, limit: query.limit, offset: query.offset };
  }

  async #find(id: string): Promise<SecretBackendRow & { secrets_count: number }> {
    const row = isUuid(id) ? await this.repo.find(id) : undefined;
    if (!row) throw notFound();
    return row;
  }

  async #makeDefault(trx: BackendsTx, id: string, actor: string | null): Promise<void> {
    await this.repo.clearDefault(trx, actor);
    await this.repo.update(trx, id, { is_default: true, updated_by: actor });
  }

  async #audit(
    context: AuditContext | undefined,
    eventType: string,
    id: string,
    details: Record<string, unknown>,
    trx: BackendsTx,
  ): Promise<void> {
    await this.audit.record(
      context,
      { eventType, action: ACTION, resourceType: 'secret_backend', resourceId: id, outcome: 'success', orgId: null, details },
      trx,
    );
  }
}

function notFound() {
  return problems.resourceNotFound('Secret backend');
}
