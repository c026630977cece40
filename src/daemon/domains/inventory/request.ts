import { SYNC_ONLY } from '../../../shared/api/inventory.js';
import { problems } from '../../../shared/api/problems.js';
import type { AppContext } from '../../http/types.js';
import { notFound, type Actor } from './access.js';

/** The caller as the inventory services need it; the organization step has resolved the active organization. */
export function actorOf(ctx: AppContext): Actor {
  const org = ctx.state.org;
  if (!org) throw notFound('organization');
  return { org, sub: ctx.state.auth?.principal?.sub ?? null, audit: ctx.state.audit };
}

/** A body naming a field only provider sync writes is refused by name (preValidation: before the body's schema). */
export function refuseSyncOnly(ctx: AppContext): void {
  const body = ctx.state.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
  const named = SYNC_ONLY.filter((key) => Object.hasOwn(body, key));
  if (named.length > 0) throw problems.validation(named.map((key) => ({ path: key, message: 'is set by provider sync only' })));
}
