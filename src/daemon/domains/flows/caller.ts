import { problems } from '../../../shared/api/problems.js';
import type { AppContext } from '../../http/types.js';
import type { FlowCaller } from './flow-access.js';

/** The caller as the flow services see it; the request path has resolved the organization already. */
export function flowCaller(ctx: AppContext): FlowCaller {
  const org = ctx.state.org;
  if (!org) throw problems.resourceNotFound('Organization');
  const principal = ctx.state.auth?.principal;
  return { org, sub: principal?.sub ?? null, platformAdmin: principal?.realmRoles.includes('admin') ?? false, audit: ctx.state.audit };
}
