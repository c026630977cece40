import type { Logger } from '../../logging/logger.js';
import type { UsersRepo } from '../../tenancy/users-repo.js';
import type { Step } from '../types.js';

/**
 * On the first request of a session (a token this instance has not verified before), creates or
 * refreshes the caller's profile. Best effort: a failure is logged, never fatal to the request.
 */
export function provisionUser(users: UsersRepo, log: Logger): Step {
  let devUserProvisioned = false;
  return async function provisionUserStep(ctx, next) {
    const auth = ctx.state.auth!;
    const firstOfSession = (auth.method === 'jwt' && ctx.state.freshCredential) || (auth.method === 'dev_bypass' && !devUserProvisioned);
    if (firstOfSession && auth.principal) {
      try {
        await users.upsertLogin(auth.principal);
        if (auth.method === 'dev_bypass') devUserProvisioned = true;
      } catch (error) {
        log.warn({ err: error, sub: auth.principal.sub }, 'user provisioning failed; continuing');
      }
    }
    return next();
  };
}
