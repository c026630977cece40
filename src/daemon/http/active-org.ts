import { problems } from '../../shared/api/problems.js';
import type { AppContext } from './types.js';

/**
 * The request's active organization, which `resolveOrganization` sets on every organization-scoped route;
 * a handler that runs without one answers 404 rather than act on no tenant.
 */
export function activeOrg(ctx: AppContext): { readonly id: string; readonly slug: string } {
  const org = ctx.state.org;
  if (!org) throw problems.resourceNotFound('Organization');
  return org;
}
