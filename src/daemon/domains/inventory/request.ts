import type { AppContext } from '../../http/types.js';
import { notFound, type Actor } from './access.js';

/** The caller as the inventory services need it; the organization step has resolved the active organization. */
export function actorOf(ctx: AppContext): Actor {
  const org = ctx.state.org;
  if (!org) throw notFound('organization');
  return { org, sub: ctx.state.auth?.principal?.sub ?? null, audit: ctx.state.audit };
}

export function bodyOf(ctx: AppContext): unknown {
  return ctx.state.body ?? {};
}
