import { activeOrg } from '../../http/active-org.js';
import type { AppContext } from '../../http/types.js';
import type { FlowCaller } from './flow-access.js';

/** The caller as the flow services see it; the request path has resolved the organization already. */
export function flowCaller(ctx: AppContext): FlowCaller {
  const org = activeOrg(ctx);
  const principal = ctx.state.auth?.principal;
  return { org, sub: principal?.sub ?? null, platformAdmin: principal?.realmRoles.includes('admin') ?? false, audit: ctx.state.audit };
}
