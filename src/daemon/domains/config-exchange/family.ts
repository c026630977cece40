import type { Knex } from 'knex';
import type { z } from 'zod';
import type { AuditEvent } from '../../audit/audit-writer.js';

/**
 * A resource family: one kind of configuration row (variables, permission overrides, ...) as it travels
 * in a configuration bundle. The engine (`engine/`) exports, plans and applies every family through this
 * interface alone; a family knows its rows, the engine knows bundles, diffs, fingerprints and transactions.
 *
 * To add a family, write `families/<name>.ts` exporting a `defineFamily({...})` and list it in
 * `families/index.ts` (where dependencies are checked). What a family must keep:
 *
 * - `item` is the bundle shape of one row, a strict zod object: natural keys only, never a UUID; another
 *   row is referenced by its name or slug (a webhook's `secret_ref: <secret name>`). No timestamps, no
 *   `*_by`: a bundle says what the configuration is, not who made it when, so an export of the same
 *   configuration is the same text on every installation.
 * - `list` answers the current rows in bundle shape, sorted by `keyOf`, each object's fields in the order
 *   `item` declares them (the export's text follows that order). It reads through `ctx.db`, which is the
 *   apply's transaction while applying (the engine lists again there to check the plan's fingerprint).
 * - `create`, `update`, `remove` write one item through repositories that take `ctx.db` (one transaction
 *   for the whole apply: any throw rolls back every family), each write audited with `ctx.audit` (the
 *   engine stamps the operation's correlation id) and caches emptied in `ctx.afterCommit`. `remove` is
 *   only called when the operation prunes. A thrown `Problem` fails the operation with it.
 * - `scope`: `org` rows belong to the operation's organization (`ctx.org`, always set for them); `platform`
 *   rows are the installation's (`ctx.org` may be undefined).
 * - `dependsOn`: families whose rows this one references. Creates and updates run in dependency order,
 *   removals in the reverse order.
 */
export interface ResourceFamily<Item extends BundleItem = BundleItem> {
  readonly name: string;
  readonly scope: 'org' | 'platform';
  readonly dependsOn: readonly string[];
  /** One line for `GET /config-exchange/resource-families`. */
  readonly summary: string;
  /** The bundle shape of one item (strict: an unknown field is a bundle error). */
  readonly item: z.ZodType<Item>;
  /** The natural key of an item, unique within the family (a bundle naming one twice is refused). */
  keyOf(item: Item): string;
  /**
   * Only for a family whose items reference items of the same family (a site's parent site): how deep
   * `item` sits among `items` (keyed by `keyOf`; 0 when it references none of them). Creates and updates
   * then run shallowest first and removals deepest first (key order within a depth), so a parent exists
   * before its children and goes after them. Without it, key order.
   */
  depthOf?(item: Item, items: ReadonlyMap<string, Item>): number;
  /** Rules the schema cannot state (a policy the catalogue refuses, a value not of its type): each a path inside the item. */
  check?(item: Item): readonly ItemIssue[];
  /** Rules over the whole section (at most one shared organization): each issue at the index of the item it names. */
  checkSection?(items: readonly Item[]): readonly SectionIssue[];
  /** Keys a create or update declares without carrying their values (secrets): the plan's `needs_values`. */
  needsValues?(before: Item | null, after: Item): readonly string[];
  list(ctx: FamilyContext): Promise<Item[]>;
  create(ctx: FamilyContext, item: Item): Promise<void>;
  update(ctx: FamilyContext, before: Item, after: Item): Promise<void>;
  remove(ctx: FamilyContext, item: Item): Promise<void>;
}

/** One item of a bundle section, as parsed. */
export type BundleItem = Record<string, unknown>;

export interface ItemIssue {
  /** Inside the item, dotted (`value`, `config.url`); empty for the item itself. */
  readonly path: string;
  readonly message: string;
}

export interface SectionIssue extends ItemIssue {
  /** The item's index in its section. */
  readonly index: number;
}

export interface FamilyContext {
  /** The apply's transaction, or the pool for an export or a plan: what repositories are handed. */
  readonly db: Knex;
  /** The operation's organization: always set for `org` families. */
  readonly org: { readonly id: string; readonly slug: string } | undefined;
  /** Who asked for the operation: stored in `*_by` columns and override editors. */
  readonly actor: { readonly sub: string | null; readonly username: string | null };
  /** Writes an audit entry in `db`'s transaction, stamped with the operation's correlation id. */
  audit(event: AuditEvent): Promise<void>;
  /** Work for after the apply's transaction commits (reloading an in-process cache); never run when it rolls back. */
  afterCommit(work: () => Promise<void> | void): void;
}

/** The `org` of an org-scoped family's context (the engine sets it; a missing one is a programming fault). */
export function orgOf(ctx: FamilyContext): { readonly id: string; readonly slug: string } {
  if (!ctx.org) throw new TypeError('an organization-scoped family was called without an organization');
  return ctx.org;
}

/** A section rule: only the first item that `marked` holds for may hold it; each later one is an issue at `path`. */
export function atMostOne<Item>(items: readonly Item[], marked: (i: Item) => boolean, path: string, message: string): SectionIssue[] {
  const first = items.findIndex(marked);
  return items.flatMap((i, index) => (index !== first && marked(i) ? [{ index, path, message }] : []));
}

/** Declares a family with its item type, and hands it over as the engine's uniform `ResourceFamily`. */
export function defineFamily<Item extends BundleItem>(family: ResourceFamily<Item>): ResourceFamily {
  return family as unknown as ResourceFamily;
}
