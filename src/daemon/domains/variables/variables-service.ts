import type { CreateVariableBody, UpdateVariableBody, Variable, VariableList } from '../../../shared/api/variables.js';
import type { Problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import { isUuid } from '../../../shared/ids.js';
import { variableValueProblem, type VariableType } from '../../../shared/variables/variable-rules.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import { refuseIfChanged } from '../../http/entity-tag.js';
import type { OrgAccessRepo } from '../../authz/org-access-repo.js';
import { changes, isUniqueViolation, notFound, writable, type Actor } from '../inventory/access.js';
import { variableSnapshot, variableView } from './variable-view.js';
import type { VariableRow, VariablesRepo, VariablesTx } from './variables-repo.js';

const WHAT = 'variable';
const MANAGE = 'variable:manage';
const PURGE = 'variable:purge';
const TRACKED = ['name', 'type', 'value', 'description'] as const;

export interface VariableListQuery {
  readonly q?: string | undefined;
  readonly type?: VariableType | undefined;
  readonly includeDeleted: boolean;
  readonly limit: number;
  readonly offset: number;
}

function nameTaken(): Problem {
  return problems.conflict('A live variable of this organization already has this name.');
}

function checkValue(type: VariableType, value: unknown): void {
  const problem = variableValueProblem(type, value);
  if (problem) throw problems.validation([{ path: 'value', message: problem }]);
}

/**
 * Variables of the active organization, readable together with the shared organization's
 * (`variable:view|manage|purge`). Every change is one transaction with its audit entry, which carries
 * the variable's fields before and after: the audit log is its change history. The readable
 * organizations are looked up before a transaction opens (PGlite's one connection).
 */
export class VariablesService {
  constructor(
    private readonly repo: VariablesRepo,
    private readonly access: OrgAccessRepo,
    private readonly audit: AuditWriter,
  ) {}

  async list(actor: Actor, query: VariableListQuery): Promise<VariableList> {
    const orgIds = await this.access.readableOrgIds(actor.org.id);
    const { rows, total } = await this.repo.list({ orgId: actor.org.id, orgIds, ...query });
    return { items: rows.map((row) => variableView(row, actor.org.id)), total, limit: query.limit, offset: query.offset };
  }

  async get(actor: Actor, id: string): Promise<Variable> {
    const row = isUuid(id) ? await this.repo.findLive(await this.access.readableOrgIds(actor.org.id), id) : undefined;
    if (!row) throw notFound(WHAT);
    return variableView(row, actor.org.id);
  }

  async create(actor: Actor, input: CreateVariableBody): Promise<Variable> {
    checkValue(input.type, input.value);
    return this.#guardNames(() =>
      this.repo.transaction(async (trx) => {
        if (await this.repo.nameTaken(trx, actor.org.id, input.name)) throw nameTaken();
        const row = await this.repo.insert(trx, {
          org_id: actor.org.id,
          name: input.name,
          type: input.type,
          value_json: JSON.stringify(input.value),
          description: input.description ?? null,
          created_by: actor.sub,
          updated_by: actor.sub,
        });
        await this.#record(actor, trx, 'entity.created', MANAGE, row, { snapshot: variableSnapshot(row) });
        return variableView(row, actor.org.id);
      }),
    );
  }

  /** `ifMatch`: the request's `If-Match`, held against the variable's entity tag before anything changes. */
  async update(actor: Actor, id: string, input: UpdateVariableBody, ifMatch?: string): Promise<Variable> {
    const orgIds = await this.#readableFor(actor, id);
    return this.#guardNames(() =>
      this.repo.transaction(async (trx) => {
        const current = writable(await this.repo.lock(trx, orgIds, id), actor.org.id, WHAT, true);
        refuseIfChanged(ifMatch, () => variableView(current, actor.org.id), WHAT);
        const type = input.type ?? current.type;
        // A new type needs a value of that type: the stored one is checked against it unless one is sent
        // (a `null` sent is a value, checked as every other: only a json variable may hold it).
        if (input.type !== undefined || input.value !== undefined)
          checkValue(type, input.value !== undefined ? input.value : current.value_json);
        if (input.name !== undefined && input.name !== current.name && (await this.repo.nameTaken(trx, actor.org.id, input.name, id)))
          throw nameTaken();
        const change: Record<string, unknown> = { updated_by: actor.sub };
        if (input.name !== undefined) change.name = input.name;
        if (input.type !== undefined) change.type = input.type;
        if (input.value !== undefined) change.value_json = JSON.stringify(input.value);
        if (input.description !== undefined) change.description = input.description;
        const row = await this.repo.update(trx, id, change);
        await this.#record(actor, trx, 'entity.updated', MANAGE, row, {
          changes: changes(variableSnapshot(current), variableSnapshot(row), TRACKED),
        });
        return variableView(row, actor.org.id);
      }),
    );
  }

  async remove(actor: Actor, id: string): Promise<void> {
    const orgIds = await this.#readableFor(actor, id);
    await this.repo.transaction(async (trx) => {
      const row = writable(await this.repo.lock(trx, orgIds, id), actor.org.id, WHAT, true);
      await this.#record(actor, trx, 'entity.deleted', MANAGE, (await this.repo.softDelete(trx, id, actor.sub)) ?? row, {});
    });
  }

  /** The variable restored (or as it is, when live); 409 when a live variable took its name meanwhile. */
  async restore(actor: Actor, id: string): Promise<Variable> {
    const orgIds = await this.#readableFor(actor, id);
    return this.#guardNames(() =>
      this.repo.transaction(async (trx) => {
        const row = writable(await this.repo.lock(trx, orgIds, id), actor.org.id, WHAT, false);
        if (row.deleted_at === null) return variableView(row, actor.org.id);
        if (await this.repo.nameTaken(trx, actor.org.id, row.name)) throw nameTaken();
        const restored = (await this.repo.restore(trx, id, actor.sub))!;
        await this.#record(actor, trx, 'entity.restored', MANAGE, restored, { snapshot: variableSnapshot(restored) });
        return variableView(restored, actor.org.id);
      }),
    );
  }

  /** Removes a variable for good, live or soft-deleted; its audit entries stay. */
  async purge(actor: Actor, id: string): Promise<void> {
    const orgIds = await this.#readableFor(actor, id);
    await this.repo.transaction(async (trx) => {
      const row = writable(await this.repo.lock(trx, orgIds, id), actor.org.id, WHAT, false);
      await this.repo.purge(trx, id);
      await this.#record(actor, trx, 'entity.purged', PURGE, row, { snapshot: variableSnapshot(row) });
    });
  }

  async #readableFor(actor: Actor, id: string): Promise<string[]> {
    if (!isUuid(id)) throw notFound(WHAT);
    return this.access.readableOrgIds(actor.org.id);
  }

  /** The unique index has the last word on names: a race past the check still answers 409. */
  async #guardNames<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isUniqueViolation(error)) throw nameTaken();
      throw error;
    }
  }

  async #record(
    actor: Actor,
    trx: VariablesTx,
    eventType: string,
    action: string,
    row: VariableRow,
    details: Record<string, unknown>,
  ): Promise<void> {
    await this.audit.record(
      actor.audit,
      {
        eventType,
        action,
        resourceType: WHAT,
        resourceId: row.id,
        outcome: 'success',
        orgId: actor.org.id,
        details: { name: row.name, ...details },
      },
      trx,
    );
  }
}
