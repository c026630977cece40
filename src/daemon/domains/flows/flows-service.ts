import { EMPTY_DEFINITION, type FlowDefinition } from '../../../shared/flows/definition.js';
import { sameJson } from '../../../shared/flows/same-json.js';
import { type Problem, problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import { draftSummary, type FlowAccess, type FlowCaller } from './flow-access.js';
import { refuseIfChanged } from '../../http/entity-tag.js';
import { flowSummaryView, flowView, validation, type FlowSummaryView, type FlowView } from './flow-view.js';
import type { FlowRow, FlowsRepo, FlowsTx } from './flows-repo.js';

/**
 * Something else that refers to flows (webhook endpoints) may refuse a delete: it answers why (409
 * `conflict` with that detail), throws its own Problem, or answers undefined to let it happen. It runs
 * inside the delete's transaction, with the flow row locked, and must read through `trx` (the embedded
 * database has a single connection).
 */
export type FlowDeleteGuard = (
  flow: { readonly id: string; readonly org_id: string; readonly name: string },
  kind: 'delete' | 'purge',
  trx: FlowsTx,
) => Promise<string | undefined>;

/**
 * Something else a flow's duplicate must carry (its draft's attachments): it runs inside the duplicate's
 * transaction once the copy's row exists and reads and writes through `trx`. Work that must not hold the
 * transaction (copying bytes) it answers as a follow-up, run once the copy has committed; a follow-up
 * that fails purges the copy again, so a duplicate is whole or not there.
 */
export type FlowDuplicateHook = (
  from: { readonly id: string; readonly org_id: string },
  to: { readonly id: string; readonly org_id: string },
  trx: FlowsTx,
  caller: FlowCaller,
) => Promise<(() => Promise<void>) | undefined>;

const MANAGE = 'flow:manage';
const PURGE = 'flow:purge';
const MAX_NAME = 255;

function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}

const nameTaken = () => problems.conflict('A flow of this organization already has this name.');

/** Flows as documents: create, list, read, replace, autosave the draft, pin, manual runs, duplicate, delete, restore, purge. */
export class FlowsService {
  readonly #guards: FlowDeleteGuard[] = [];
  readonly #duplicateHooks: FlowDuplicateHook[] = [];

  constructor(
    private readonly repo: FlowsRepo,
    private readonly access: FlowAccess,
  ) {}

  addDeleteGuard(guard: FlowDeleteGuard): void {
    this.#guards.push(guard);
  }

  addDuplicateHook(hook: FlowDuplicateHook): void {
    this.#duplicateHooks.push(hook);
  }

  async list(
    caller: FlowCaller,
    filter: { q?: string | undefined; pinned?: boolean | undefined; includeDeleted: boolean; limit: number; offset: number },
  ) {
    const orgIds = await this.access.readableOrgIds(caller);
    const { rows, total } = await this.repo.list({ orgIds, ...filter });
    return { items: rows.map((row) => flowSummaryView(row, caller.org.id)), total, limit: filter.limit, offset: filter.offset };
  }

  async get(caller: FlowCaller, id: string): Promise<FlowView> {
    return flowView(await this.access.readable(caller, id), caller.org.id);
  }

  async create(
    caller: FlowCaller,
    input: { name: string; description?: string | null | undefined; definition?: FlowDefinition | undefined },
  ): Promise<FlowView> {
    const draft = input.definition ?? EMPTY_DEFINITION;
    return this.access.auditingRefusal(caller, MANAGE, undefined, () =>
      this.#unique(() =>
        this.repo.transaction(async (trx) => {
          this.access.refuseRestricted(caller, undefined, draft);
          const row = await this.#insert(trx, caller, { name: input.name, description: input.description ?? null, draft });
          await this.access.record(trx, caller, {
            eventType: 'entity.created',
            action: MANAGE,
            flow: row,
            details: { draft: draftSummary(draft, validation(draft).valid) },
          });
          return flowView(row, caller.org.id);
        }),
      ),
    );
  }

  /** PUT: name, description and draft replaced together; nothing written when nothing differs. */
  async replace(
    caller: FlowCaller,
    id: string,
    input: { name: string; description: string | null; definition: FlowDefinition },
    ifMatch?: string,
  ): Promise<FlowView> {
    const orgIds = await this.access.readableOrgIds(caller);
    return this.access.auditingRefusal(caller, MANAGE, id, () =>
      this.#unique(() =>
        this.repo.transaction(async (trx) => {
          const flow = await this.access.lockWritable(trx, orgIds, caller, id);
          refuseIfChanged(ifMatch, () => flowView(flow, caller.org.id), 'flow');
          const changes: string[] = [];
          if (input.name !== flow.name) changes.push('name');
          if (input.description !== flow.description) changes.push('description');
          if (!sameJson(input.definition, flow.draft_json)) changes.push('draft');
          if (changes.length === 0) return flowView(flow, caller.org.id);
          if (changes.includes('draft')) this.access.refuseRestricted(caller, flow.draft_json, input.definition);
          if (changes.includes('name') && (await this.repo.nameTaken(trx, flow.org_id, input.name, flow.id))) throw nameTaken();
          const row = await this.repo.update(trx, flow.id, {
            name: input.name,
            description: input.description,
            draft_json: input.definition,
            draft_dirty: await this.access.dirty(trx, flow, input.definition),
            updated_by: caller.sub,
          });
          await this.#recordUpdate(trx, caller, row, changes, flow);
          return flowView(row, caller.org.id);
        }),
      ),
    );
  }

  /** Autosave: the draft only. An identical draft is not written (nor audited). */
  async saveDraft(caller: FlowCaller, id: string, definition: FlowDefinition, ifMatch?: string): Promise<FlowView> {
    const orgIds = await this.access.readableOrgIds(caller);
    return this.access.auditingRefusal(caller, MANAGE, id, () =>
      this.repo.transaction(async (trx) => {
        const flow = await this.access.lockWritable(trx, orgIds, caller, id);
        refuseIfChanged(ifMatch, () => flowView(flow, caller.org.id), 'flow');
        if (sameJson(definition, flow.draft_json)) return flowView(flow, caller.org.id);
        this.access.refuseRestricted(caller, flow.draft_json, definition);
        const row = await this.repo.update(trx, flow.id, {
          draft_json: definition,
          draft_dirty: await this.access.dirty(trx, flow, definition),
          updated_by: caller.sub,
        });
        await this.#recordUpdate(trx, caller, row, ['draft'], flow);
        return flowView(row, caller.org.id);
      }),
    );
  }

  async setPinned(caller: FlowCaller, id: string, pinned: boolean): Promise<FlowView> {
    return this.#setFlag(caller, id, 'is_pinned', pinned);
  }

  async setManualRuns(caller: FlowCaller, id: string, enabled: boolean): Promise<FlowView> {
    return this.#setFlag(caller, id, 'manual_runs_enabled', enabled);
  }

  /**
   * A new flow in the caller's active organization holding a copy of the source's draft (no versions) and
   * whatever the duplicate hooks copy with it (its attachments): the way to take a shared organization's
   * flow and change it. Narrowing applies as to a new flow.
   */
  async duplicate(caller: FlowCaller, id: string, name: string | undefined): Promise<FlowView> {
    const source = await this.access.readable(caller, id);
    const followUps: (() => Promise<void>)[] = [];
    const copy = await this.access.auditingRefusal(caller, MANAGE, id, () =>
      this.#unique(() =>
        this.repo.transaction(async (trx) => {
          this.access.refuseRestricted(caller, undefined, source.draft_json);
          const chosen = name ?? (await this.#copyName(trx, caller.org.id, source.name));
          const row = await this.#insert(trx, caller, {
            name: chosen,
            description: source.description,
            draft: source.draft_json,
            manual_runs_enabled: source.manual_runs_enabled,
          });
          for (const hook of this.#duplicateHooks) {
            const followUp = await hook(source, row, trx, caller);
            if (followUp) followUps.push(followUp);
          }
          await this.access.record(trx, caller, {
            eventType: 'entity.created',
            action: MANAGE,
            flow: row,
            details: {
              duplicated_from: { id: source.id, org_id: source.org_id, name: source.name },
              draft: draftSummary(row.draft_json, validation(row.draft_json).valid),
            },
          });
          return { row, view: flowView(row, caller.org.id) };
        }),
      ),
    );
    try {
      for (const followUp of followUps) await followUp();
    } catch (error) {
      await this.repo.transaction(async (trx) => {
        await this.repo.purge(trx, copy.row.id);
        await this.access.record(trx, caller, {
          eventType: 'entity.purged',
          action: MANAGE,
          flow: copy.row,
          details: { reason: 'duplicate_incomplete' },
        });
      });
      throw error;
    }
    return copy.view;
  }

  async softDelete(caller: FlowCaller, id: string): Promise<void> {
    const orgIds = await this.access.readableOrgIds(caller);
    await this.repo.transaction(async (trx) => {
      const flow = await this.access.lockWritable(trx, orgIds, caller, id);
      await this.#checkGuards(trx, flow, 'delete');
      await this.repo.softDelete(trx, flow.id, caller.sub);
      await this.access.record(trx, caller, { eventType: 'entity.deleted', action: MANAGE, flow });
    });
  }

  /** Brings a soft-deleted flow back; 409 when it is not deleted or a live flow took its name meanwhile. */
  async restore(caller: FlowCaller, id: string): Promise<FlowView> {
    const orgIds = await this.access.readableOrgIds(caller);
    return this.#unique(() =>
      this.repo.transaction(async (trx) => {
        const flow = await this.access.lockWritable(trx, orgIds, caller, id, 'accept');
        if (!flow.deleted_at) throw problems.conflict('This flow is not deleted.');
        if (await this.repo.nameTaken(trx, flow.org_id, flow.name))
          throw problems.conflict("A live flow has taken this flow's name: rename that one first.");
        const row = await this.repo.restore(trx, flow.id, caller.sub);
        await this.access.record(trx, caller, { eventType: 'entity.restored', action: MANAGE, flow: row });
        return flowView(row, caller.org.id);
      }),
    );
  }

  /** Deletes for good, live or soft-deleted, with its versions (runs keep their own snapshot). */
  async purge(caller: FlowCaller, id: string): Promise<void> {
    const orgIds = await this.access.readableOrgIds(caller);
    await this.repo.transaction(async (trx) => {
      const flow = await this.access.lockWritable(trx, orgIds, caller, id, 'accept');
      await this.#checkGuards(trx, flow, 'purge');
      await this.repo.purge(trx, flow.id);
      await this.access.record(trx, caller, {
        eventType: 'entity.purged',
        action: PURGE,
        flow,
        details: { latest_version: flow.latest_version, was_deleted: flow.deleted_at !== null },
      });
    });
  }

  async #setFlag(caller: FlowCaller, id: string, column: 'is_pinned' | 'manual_runs_enabled', value: boolean): Promise<FlowView> {
    const orgIds = await this.access.readableOrgIds(caller);
    return this.repo.transaction(async (trx) => {
      const flow = await this.access.lockWritable(trx, orgIds, caller, id);
      if (flow[column] === value) return flowView(flow, caller.org.id);
      const row = await this.repo.update(trx, flow.id, { [column]: value, updated_by: caller.sub });
      await this.access.record(trx, caller, {
        eventType: 'entity.updated',
        action: MANAGE,
        flow: row,
        details: { changes: [column], old: { [column]: flow[column] }, new: { [column]: value } },
      });
      return flowView(row, caller.org.id);
    });
  }

  async #insert(
    trx: FlowsTx,
    caller: FlowCaller,
    input: { name: string; description: string | null; draft: FlowDefinition; manual_runs_enabled?: boolean },
  ): Promise<FlowRow> {
    if (await this.repo.nameTaken(trx, caller.org.id, input.name)) throw nameTaken();
    return this.repo.insert(trx, {
      org_id: caller.org.id,
      name: input.name,
      description: input.description,
      draft_json: input.draft,
      ...(input.manual_runs_enabled !== undefined ? { manual_runs_enabled: input.manual_runs_enabled } : {}),
      created_by: caller.sub,
    });
  }

  async #recordUpdate(trx: FlowsTx, caller: FlowCaller, row: FlowRow, changes: string[], before: FlowRow): Promise<void> {
    const details: Record<string, unknown> = { changes };
    if (changes.includes('name')) details.old_name = before.name;
    if (changes.includes('draft')) details.draft = draftSummary(row.draft_json, validation(row.draft_json).valid);
    await this.access.record(trx, caller, { eventType: 'entity.updated', action: MANAGE, flow: row, details });
  }

  /** `<name> (copy)`, then `(copy 2)`, … the first free one among the organization's live flows. */
  async #copyName(trx: FlowsTx, orgId: string, name: string): Promise<string> {
    for (let n = 1; n < 1000; n++) {
      const suffix = n === 1 ? ' (copy)' : ` (copy ${n})`;
      const candidate = `${[...name].slice(0, MAX_NAME - suffix.length).join('')}${suffix}`;
      if (!(await this.repo.nameTaken(trx, orgId, candidate))) return candidate;
    }
    throw nameTaken();
  }

  async #checkGuards(trx: FlowsTx, flow: FlowRow, kind: 'delete' | 'purge'): Promise<void> {
    for (const guard of this.#guards) {
      const reason = await guard({ id: flow.id, org_id: flow.org_id, name: flow.name }, kind, trx);
      if (reason !== undefined) throw problem('conflict', reason);
    }
  }

  /** The check in the transaction answers the usual case; the unique index catches a concurrent twin. */
  async #unique<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isUniqueViolation(error)) throw nameTaken();
      throw error;
    }
  }
}
