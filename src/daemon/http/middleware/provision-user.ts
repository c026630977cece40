import type { Logger } from '../../logging/logger.js';
import type { LoginSync } from '../../tenancy/login-sync.js';
import type { Step } from '../types.js';

/**
 * On the first request of a session (a login this instance has not seen), creates or refreshes the
 * caller's profile and derives its memberships (IdP group sync, auto-join). Best effort: a failure is
 * logged, never fatal to the request. It runs before the organization step, so the request already
 * sees the memberships it produced.
 */
export function provisionUser(loginSync: LoginSync, log: Logger): Step {
  let devUserProvisioned = false;
  return function provisionUserStep(ctx) {
    const auth = ctx.state.auth!;
    const firstOfSession = (auth.method === 'jwt' && ctx.state.freshCredential) || (auth.method === 'dev_bypass' && !devUserProvisioned);
    if (!firstOfSession || !auth.principal) return;
    return provision();

    async function provision(): Promise<void> {
      try {
        // The mock principal carries no group claim: it syncs as a token with no groups.
        await loginSync.run(
          { principal: auth.principal!, claimValues: auth.method === 'dev_bypass' ? [] : auth.claimValues },
          ctx.state.audit,
        );
        if (auth.method === 'dev_bypass') devUserProvisioned = true;
      } catch (error) {
        log.warn({ err: error, sub: auth.principal!.sub }, 'first-request provisioning failed; continuing');
      }
    }
  };
}
