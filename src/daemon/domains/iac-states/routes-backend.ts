import { iacState, iacStatePath, iacStateVersion, lockInfo, stateDocument, stateWriteQuery } from '../../../shared/api/iac-states.js';
import { problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import { noQuery } from '../../../shared/api/query.js';
import type { EffectivePolicies } from '../../authz/effective-policies.js';
import { activeOrg } from '../../http/active-org.js';
import { requestHeader } from '../../http/request-header.js';
import { route } from '../../http/route.js';
import type { AppContext, DomainRoutes } from '../../http/types.js';
import type { IacActor } from './iac-actor.js';
import type { IacStatesService } from './iac-states-service.js';
import { mayForceUnlock } from './force-unlock-right.js';

/**
 * The caller as the state service sees it. A run token acts only on the one state it was minted for
 * (403 `run_token_scope` elsewhere).
 */
export function actorFor(ctx: AppContext, name: string): IacActor {
  const grant = ctx.state.auth?.runToken;
  if (!grant) return { subject: ctx.state.auth?.principal?.sub ?? null };
  if (grant.stateName !== name)
    throw problem('run_token_scope', `This run token is for state ${grant.stateName ?? '(none)'}, not ${name}.`);
  return { subject: `run_token:${grant.tokenId}`, runToken: { tokenId: grant.tokenId, runId: grant.runId, stepId: grant.stepId } };
}

/** A lock info body read from the raw bytes (the unlock route reads its body itself: an empty one forces). */
function parseLockInfo(raw: Buffer) {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw problems.malformedJson();
  }
  const checked = lockInfo.safeParse(parsed);
  if (!checked.success) throw problems.validation(checked.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })));
  return checked.data;
}

const LOCKED = {
  description:
    "`iac_state_locked`: another holder has the lock; the body carries the holder's lock info (`ID`, `Operation`, `Who`, …) as Terraform reads it",
};
const MISMATCH = {
  description: "`iac_lock_mismatch`: the request names a lock that is not the holder's; the holder's lock info in the body",
};
const SCOPE = { description: '`run_token_scope`: a run token for another state; `forbidden`' };
const AUTH = { description: 'No credential, or not a live run token (`invalid_run_token`, with a Basic challenge)' };

/**
 * The Terraform/OpenTofu `http` backend (configure `address` …/state, `lock_address` and
 * `unlock_address` …/lock, `lock_method=POST`, `unlock_method=DELETE`). Bearer or HTTP Basic with a run
 * token as the password.
 */
export function backendRoutes(service: IacStatesService, policies: EffectivePolicies, maxStateBytes: number): DomainRoutes {
  return {
    'GET /iac-states/{name}/state': route({
      summary: 'The newest state document (200), or 204 when the state has none yet.',
      params: iacStatePath,
      query: noQuery,
      responses: {
        200: { description: 'The state document, as written', schema: stateDocument },
        204: { description: 'No state yet' },
        401: AUTH,
        403: SCOPE,
      },
      async handle(ctx, { params }) {
        actorFor(ctx, params.name);
        const document = await service.current(activeOrg(ctx).id, params.name);
        if (!document) {
          ctx.status = 204;
          return;
        }
        ctx.type = 'application/json';
        ctx.body = document;
      },
    }),
    'POST /iac-states/{name}/state': route({
      summary:
        'Writes a new version `?ID=<lock id>` (the lock the writer holds); `Content-MD5` (base64) is checked. Every write is a new version, encrypted at rest.',
      params: iacStatePath,
      query: stateWriteQuery,
      body: stateDocument,
      bodyMode: 'raw',
      maxBodyBytes: maxStateBytes,
      responses: {
        200: { description: 'The version written', schema: iacStateVersion },
        400: { description: '`content_md5_mismatch`' },
        401: AUTH,
        403: SCOPE,
        409: MISMATCH,
        413: { description: '`payload_too_large` (SERVICE_IAC_STATE_MAX_BYTES)' },
        422: { description: '`invalid_state_document`' },
        423: LOCKED,
      },
      async handle(ctx, { params, query }) {
        const actor = actorFor(ctx, params.name);
        const raw = ctx.state.rawBody ?? Buffer.alloc(0);
        const write = { raw, contentMd5: requestHeader(ctx, 'content-md5') || undefined, lockId: query.ID };
        ctx.body = await service.write(activeOrg(ctx).id, params.name, write, actor, ctx.state.audit);
      },
    }),
    'POST /iac-states/{name}/lock': route({
      summary:
        "Takes the lock with Terraform's lock info `{ID, Operation, Info, Who, Version, Created, Path}`; the holder asking again keeps it.",
      params: iacStatePath,
      body: lockInfo,
      responses: {
        200: { description: 'Locked: the state as it is now', schema: iacState },
        401: AUTH,
        403: SCOPE,
        422: { description: '`validation_failed`' },
        423: LOCKED,
      },
      async handle(ctx, { params, body }) {
        const actor = actorFor(ctx, params.name);
        ctx.body = await service.lock(activeOrg(ctx).id, params.name, body, actor, ctx.state.audit);
      },
    }),
    'DELETE /iac-states/{name}/lock': route({
      summary:
        "Lets the lock go: the body is the holder's lock info. An empty body forces whatever lock is held and ends a run's hold (`terraform force-unlock`): that needs `iac_state:manage` and is never allowed to a run token.",
      params: iacStatePath,
      body: lockInfo,
      bodyMode: 'raw',
      responses: {
        200: { description: 'Unlocked (or was not locked): the state as it is now', schema: iacState },
        401: AUTH,
        403: {
          description: '`force_unlock_forbidden` (an empty-body force without `iac_state:manage`, or by a run token), `run_token_scope`',
        },
        404: { description: 'No such state (`resource_not_found`)' },
        409: MISMATCH,
        422: { description: '`validation_failed`' },
      },
      async handle(ctx, { params }) {
        actorFor(ctx, params.name);
        const raw = ctx.state.rawBody;
        const org = activeOrg(ctx).id;
        if (raw === undefined || raw.length === 0) {
          if (!mayForceUnlock(ctx, policies)) {
            throw problem('force_unlock_forbidden', "Forcing another holder's lock needs iac_state:manage; a run token never may.", {
              action: 'iac_state:manage',
            });
          }
          ctx.body = await service.forceUnlock(org, params.name, 'iac_state:write', ctx.state.audit);
        } else {
          ctx.body = await service.unlock(org, params.name, parseLockInfo(raw), ctx.state.audit);
        }
      },
    }),
  };
}
