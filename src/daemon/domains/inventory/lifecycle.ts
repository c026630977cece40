import type { Knex } from 'knex';
import type { AuditWriter } from '../../audit/audit-writer.js';
import type { Problem } from '../../../shared/api/problem.js';
import { isUuid } from '../../../shared/ids.js';
import { isUniqueViolation, notFound, writable, type Actor, type OwnedRow } from './access.js';
import { distinct, results, triage, withoutNameClashes, type BulkResult, type BulkStatus } from './bulk.js';

type Tx = Knex.Transaction;

/** What the lifecycle needs of a resource's repository (its soft-delete writes are `SoftDeleteTable`'s). */
export interface LifecycleRepo<R extends OwnedRow> {
  transaction<T>(work: (trx: Tx) => Promise<T>): Promise<T>;
  /** A row of one of `orgIds`, live or not, locked for the rest of the transaction. */
  lock(trx: Tx, orgIds: readonly string[], id: string): Promise<R | undefined>;
  lockMany(trx: Tx, orgIds: readonly string[], ids: readonly string[]): Promise<R[]>;
  /** Which of `names` live rows of the organization hold. */
  liveNames(trx: Tx, orgId: string, names: readonly string[]): Promise<Set<string>>;
  softDelete(trx: Tx, ids: readonly string[], by: string | null): Promise<R[]>;
  /** Brings rows back; those in `detach` lose their link (`LifecycleResource.link`). */
  restore(trx: Tx, ids: readonly string[], detach: ReadonlySet<string>, by: string | null): Promise<R[]>;
  purge(trx: Tx, ids: readonly string[]): Promise<void>;
}

/** An inventory resource, as the lifecycle of its rows needs it. */
export interface LifecycleResource<R extends OwnedRow> {
  /** Its name in answers and audit entries (`site`). */
  readonly what: string;
  /** The actions of create, update, delete and restore (`site:manage`), and of purge (`site:purge`). */
  readonly actions: { readonly manage: string; readonly purge: string };
  readonly repo: LifecycleRepo<R>;
  readonly audit: AuditWriter;
  /** The organizations the actor may read (its own, and the shared one). */
  readable(actor: Actor): Promise<string[]>;
  /** The row's fields as audit entries carry them. */
  snapshot(row: R): Record<string, unknown>;
  /** The refusal of a name a live row already holds. */
  nameTaken(): Problem;
  /**
   * The row's link to another row (a site's parent, a device's site), which a restore lets go of when its
   * target is no longer live and not restored by the same request; the entry then names it
   * (`detached_<column>`), as a file restored from a trash whose folder is gone comes back at the root.
   */
  readonly link: {
    readonly column: string;
    of(row: R): string | null;
    /** Of `ids`, those naming live rows of the organization. */
    liveTargets(trx: Tx, orgId: string, ids: readonly string[]): Promise<Set<string>>;
  };
  /**
   * What may not be deleted while something live depends on it: `refuse` throws for a single delete,
   * `keepOut` moves bulk candidates to `in_use` and answers the others.
   */
  readonly inUse?: {
    refuse(trx: Tx, row: R): Promise<void>;
    keepOut(trx: Tx, candidates: readonly R[], verdicts: Map<string, BulkStatus>): Promise<R[]>;
  };
}

/**
 * What every inventory resource's rows go through alike: their audit entries, the name rule's last word,
 * and delete, restore and purge, by id and in bulk, each one transaction with its audit entries (the
 * writes themselves are `db/soft-delete.ts`'s). A bulk request answers per id (bulk.ts) and applies to
 * what it may; a single request refuses as a whole. The readable organizations are looked up before a
 * transaction opens: on the embedded database knex has a single connection, which the open transaction
 * holds.
 */
export class Lifecycle<R extends OwnedRow> {
  constructor(private readonly resource: LifecycleResource<R>) {}

  async remove(actor: Actor, id: string): Promise<void> {
    const { repo, inUse } = this.resource;
    const { manage } = this.resource.actions;
    const orgIds = await this.#readableFor(actor, id);
    await repo.transaction(async (trx) => {
      const row = writable(await repo.lock(trx, orgIds, id), actor.org.id, this.resource.what, true);
      await inUse?.refuse(trx, row);
      const [deleted] = await repo.softDelete(trx, [id], actor.sub);
      await this.record(actor, trx, 'entity.deleted', manage, deleted ?? row, {});
    });
  }

  /** The row restored, or as it was when it is live; 409 when a live row took its name meanwhile. */
  async restore(actor: Actor, id: string): Promise<R> {
    const { repo, what } = this.resource;
    const orgIds = await this.#readableFor(actor, id);
    return this.guardNames(() =>
      repo.transaction(async (trx) => {
        const row = writable(await repo.lock(trx, orgIds, id), actor.org.id, what, false);
        if (row.deleted_at === null) return row;
        if ((await repo.liveNames(trx, actor.org.id, [row.name])).size > 0) throw this.resource.nameTaken();
        const [restored] = await this.#restoreRows(actor, trx, [row], false);
        return restored!;
      }),
    );
  }

  /** Removes a row for good, live or deleted. */
  async purge(actor: Actor, id: string): Promise<void> {
    const { repo, what } = this.resource;
    const orgIds = await this.#readableFor(actor, id);
    await repo.transaction(async (trx) => {
      const row = writable(await repo.lock(trx, orgIds, id), actor.org.id, what, false);
      await repo.purge(trx, [id]);
      await this.#recordPurged(actor, trx, row, false);
    });
  }

  /** Soft-deletes the found live rows of the organization together (but those `inUse` keeps out). */
  async bulkDelete(actor: Actor, ids: readonly string[]): Promise<{ results: BulkResult[] }> {
    const { repo, inUse } = this.resource;
    const { manage } = this.resource.actions;
    return this.#bulk(actor, ids, 'live', async (trx, candidates, verdicts) => {
      const going = inUse ? await inUse.keepOut(trx, candidates, verdicts) : candidates;
      const deleted = await repo.softDelete(
        trx,
        going.map((row) => row.id),
        actor.sub,
      );
      for (const row of deleted) await this.record(actor, trx, 'entity.deleted', manage, row, { bulk: true });
    });
  }

  /** Restores the found deleted rows of the organization whose names are free (`conflict` for the others). */
  async bulkRestore(actor: Actor, ids: readonly string[]): Promise<{ results: BulkResult[] }> {
    const { repo } = this.resource;
    return this.guardNames(() =>
      this.#bulk(actor, ids, 'deleted', async (trx, candidates, verdicts) => {
        const live = await repo.liveNames(trx, actor.org.id, distinct(candidates.map((row) => row.name)));
        await this.#restoreRows(actor, trx, withoutNameClashes(candidates, live, verdicts), true);
      }),
    );
  }

  async bulkPurge(actor: Actor, ids: readonly string[]): Promise<{ results: BulkResult[] }> {
    const { repo } = this.resource;
    return this.#bulk(actor, ids, 'any', async (trx, candidates) => {
      await repo.purge(
        trx,
        candidates.map((row) => row.id),
      );
      for (const row of candidates) await this.#recordPurged(actor, trx, row, true);
    });
  }

  /** An audit entry about `row`, in `trx`, naming it. */
  async record(actor: Actor, trx: Tx, eventType: string, action: string, row: R, details: Record<string, unknown>): Promise<void> {
    await this.resource.audit.record(
      actor.audit,
      {
        eventType,
        action,
        resourceType: this.resource.what,
        resourceId: row.id,
        outcome: 'success',
        orgId: actor.org.id,
        details: { name: row.name, ...details },
      },
      trx,
    );
  }

  /** The unique index has the last word on names: a race past the check still answers 409. */
  async guardNames<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isUniqueViolation(error)) throw this.resource.nameTaken();
      throw error;
    }
  }

  async #readableFor(actor: Actor, id: string): Promise<string[]> {
    if (!isUuid(id)) throw notFound(this.resource.what);
    return this.resource.readable(actor);
  }

  /** Locks the rows asked for and sorts them (bulk.ts `triage`); `apply` works on the candidates. */
  async #bulk(
    actor: Actor,
    ids: readonly string[],
    applies: 'live' | 'deleted' | 'any',
    apply: (trx: Tx, candidates: R[], verdicts: Map<string, BulkStatus>) => Promise<void>,
  ): Promise<{ results: BulkResult[] }> {
    const { repo } = this.resource;
    const wanted = distinct(ids);
    const orgIds = await this.resource.readable(actor);
    return repo.transaction(async (trx) => {
      const { candidates, verdicts } = triage(wanted, await repo.lockMany(trx, orgIds, wanted), actor.org.id, applies);
      await apply(trx, candidates, verdicts);
      return results(wanted, verdicts);
    });
  }

  /** Restores rows whose names are known free, letting go of links whose targets are gone. */
  async #restoreRows(actor: Actor, trx: Tx, rows: readonly R[], bulk: boolean): Promise<R[]> {
    const { repo, link } = this.resource;
    const { manage } = this.resource.actions;
    const restoring = new Set(rows.map((row) => row.id));
    const targets = distinct(rows.map(link.of).filter((target): target is string => target !== null));
    const live = await link.liveTargets(trx, actor.org.id, targets);
    const gone = (row: R) => {
      const target = link.of(row);
      return target !== null && !live.has(target) && !restoring.has(target);
    };
    const detach = new Set(rows.filter(gone).map((row) => row.id));
    const restored = await repo.restore(trx, [...restoring], detach, actor.sub);
    const before = new Map(rows.map((row) => [row.id, row]));
    for (const row of restored) {
      const detached = detach.has(row.id) ? { [`detached_${link.column}`]: link.of(before.get(row.id)!) } : {};
      const details = { snapshot: this.resource.snapshot(row), ...detached, ...(bulk ? { bulk } : {}) };
      await this.record(actor, trx, 'entity.restored', manage, row, details);
    }
    return restored;
  }

  async #recordPurged(actor: Actor, trx: Tx, row: R, bulk: boolean): Promise<void> {
    const details = { snapshot: this.resource.snapshot(row), was_deleted: row.deleted_at !== null, ...(bulk ? { bulk } : {}) };
    await this.record(actor, trx, 'entity.purged', this.resource.actions.purge, row, details);
  }
}
