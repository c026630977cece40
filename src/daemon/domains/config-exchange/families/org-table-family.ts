import type { z } from 'zod';
import { changes } from '../../inventory/access.js';
import { defineFamily, orgOf, type FamilyContext, type ItemIssue, type SectionIssue } from '../family.js';
import type { OrgRowsRepo } from '../repos/org-rows-repo.js';
import { orgAuditRecorder, refused } from './references.js';

type Row = Record<string, unknown>;

/** What a family of one organization-owned table without soft delete says about it. */
export interface OrgTableFamily<Item extends Row> {
  readonly name: string;
  readonly summary: string;
  readonly item: z.ZodType<Item>;
  readonly repo: OrgRowsRepo;
  /** The columns `fromRow` reads. */
  readonly columns: readonly string[];
  keyOf(item: Item): string;
  /** The natural key's columns and values, to find the item's row. */
  where(item: Item): Row;
  fromRow(row: Row): Item;
  /** The columns an item writes (its key among them). */
  toRow(item: Item): Row;
  check?(item: Item): readonly ItemIssue[];
  checkSection?(items: readonly Item[]): readonly SectionIssue[];
  /** Audit entries' action and resource type, as the domain's own routes write them (event types `entity.*` unless given). */
  readonly audit: {
    readonly action: string;
    readonly resourceType: string;
    readonly events?: { readonly created: string; readonly updated: string; readonly deleted: string };
  };
  /** Work after each write, in the transaction (announcing the change to other instances, `ctx.afterCommit`). */
  afterWrite?(ctx: FamilyContext): Promise<void>;
  /** Work before the item's row is written (e.g. taking a one-per-organization flag from another row). */
  beforeWrite?(ctx: FamilyContext, item: Item): Promise<void>;
  /** Why the row may not be pruned (another row still uses it), or null. */
  inUse?(ctx: FamilyContext, id: string): Promise<string | null>;
}

/** A family over one organization-owned table: rows written and deleted outright, each write audited. */
export function orgTableFamily<Item extends Row>(spec: OrgTableFamily<Item>) {
  const { repo } = spec;
  const events = spec.audit.events ?? { created: 'entity.created', updated: 'entity.updated', deleted: 'entity.deleted' };
  const audit = orgAuditRecorder(spec.audit.action, spec.audit.resourceType);
  const record = (ctx: FamilyContext, eventType: string, id: string, key: string, details: Row) =>
    audit(ctx, eventType, id, { key, ...details });
  return defineFamily<Item>({
    name: spec.name,
    scope: 'org',
    dependsOn: [],
    summary: spec.summary,
    item: spec.item,
    keyOf: spec.keyOf,
    ...(spec.check ? { check: spec.check } : {}),
    ...(spec.checkSection ? { checkSection: spec.checkSection } : {}),
    async list(ctx) {
      return (await repo.rows(ctx.db, orgOf(ctx).id, spec.columns)).map(spec.fromRow);
    },
    async create(ctx, i) {
      await spec.beforeWrite?.(ctx, i);
      const id = await repo.insert(ctx.db, orgOf(ctx).id, spec.toRow(i), ctx.actor.sub);
      await record(ctx, events.created, id, spec.keyOf(i), { snapshot: i });
      await spec.afterWrite?.(ctx);
    },
    async update(ctx, before, after) {
      const id = await repo.idOf(ctx.db, orgOf(ctx).id, spec.where(before));
      await spec.beforeWrite?.(ctx, after);
      await repo.update(ctx.db, id, spec.toRow(after), ctx.actor.sub);
      await record(ctx, events.updated, id, spec.keyOf(after), { changes: changes(before, after, Object.keys(after)) });
      await spec.afterWrite?.(ctx);
    },
    async remove(ctx, i) {
      const id = await repo.idOf(ctx.db, orgOf(ctx).id, spec.where(i));
      const reason = await spec.inUse?.(ctx, id);
      if (reason) throw refused(spec.name, spec.keyOf(i), 'in_use', reason);
      await repo.delete(ctx.db, id);
      await record(ctx, events.deleted, id, spec.keyOf(i), {});
      await spec.afterWrite?.(ctx);
    },
  });
}

/** The issues a domain's own body schema finds in what an item would send it, as paths inside the item. */
export function bodyIssues(schema: z.ZodType, body: unknown): ItemIssue[] {
  const parsed = schema.safeParse(body);
  return parsed.success ? [] : parsed.error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
}
