import { orgOf, type FamilyContext } from '../family.js';
import type { FlowReferencesRepo } from '../repos/flow-references-repo.js';
import { problem, type Problem } from '../../../../shared/api/problem.js';

/** An item naming a row (`reference`, in `field`) that neither the bundle nor the target holds. */
export function unresolved(family: string, key: string, field: string, reference: string): Problem {
  return problem('bundle_reference_unresolved', `${family} ${key}: ${field} "${reference}" exists neither in the bundle nor here.`, {
    family,
    key,
    field,
    reference,
  });
}

/** An item the target cannot take as it stands (`reason` says why). */
export function refused(family: string, key: string, reason: string, message: string): Problem {
  return problem('bundle_item_refused', `${family} ${key}: ${message}`, { family, key, reason });
}

/**
 * How deep an item sits in a tree of items referencing their parent by key (`parentOf`), counting only
 * parents among `items`; a cycle stops counting where it closes.
 */
export function depthAmong<Item>(item: Item, items: ReadonlyMap<string, Item>, parentOf: (i: Item) => string | null): number {
  const seen = new Set<string>();
  let depth = 0;
  for (let parent = parentOf(item); parent !== null && items.has(parent) && !seen.has(parent); depth++) {
    seen.add(parent);
    parent = parentOf(items.get(parent)!);
  }
  return depth;
}

/** Writes a family's audit entries about rows of the operation's organization, as the domain's routes name them. */
export function orgAuditRecorder(action: string, resourceType: string) {
  return (ctx: FamilyContext, eventType: string, id: string, details: Record<string, unknown>) =>
    ctx.audit({ eventType, action, resourceType, resourceId: id, outcome: 'success', orgId: orgOf(ctx).id, details });
}

/** The id of the live flow an item of `family` (keyed `key`) names, the organization's own or the shared one's; unresolved otherwise. */
export async function flowReference(
  flows: FlowReferencesRepo,
  ctx: FamilyContext,
  family: string,
  key: string,
  name: string,
): Promise<string> {
  const id = await flows.flowId(ctx.db, orgOf(ctx).id, name);
  if (id === undefined) throw unresolved(family, key, 'flow', name);
  return id;
}
