import { internalRunPath } from '../../../shared/api/run-callbacks.js';
import { mintedRunToken, mintIacStateAccessBody, mintRegistryAccessBody, runTokenPath } from '../../../shared/api/run-tokens.js';
import { refuseNul } from '../../http/refuse-nul.js';
import { route } from '../../http/route.js';
import type { AppContext, DomainRoutes } from '../../http/types.js';
import { holderOf } from '../run-callbacks/fence.js';
import type { RunTokensService } from './run-tokens-service.js';

const holder = (ctx: AppContext) => holderOf(ctx.req.headers);

const MINTED = {
  description: 'The token, its plaintext shown this once (`token`, prefix `svc_run_`), its scope and expiry',
  schema: mintedRunToken,
};
const NOT_FOUND = { description: 'No such run (`resource_not_found`)' };
const MINT_423 = { description: 'A hold asked for while another holder has the state locked or another run holds it (`iac_state_locked`)' };
const MINT_409 = {
  description:
    'The headers name a worker and attempt that do not hold the run (`run_not_held`), the run is not running (`invalid_run_state`), or the step is not running in this attempt (`step_not_running`)',
};
const REVOKE_404 = { description: 'No such run, or no such token of this run and kind (`resource_not_found`)' };
const REVOKE_409 = { description: '`run_not_held`' };
const INVALID = { description: 'Malformed body or fencing headers (`validation_failed`)' };

/**
 * Run tokens (`internal:run_callbacks`, `X-Internal-Token`, fenced by `X-Worker-Id` and `X-Run-Attempt`):
 * the worker holding a run mints a token for one running step, for the state backend (one named state)
 * or the registry, and revokes it. docs/run-tokens.md.
 */
export function runTokenRoutes(tokens: RunTokensService): DomainRoutes {
  return {
    'POST /internal/runs/{run_id}/iac-state-access': route({
      summary:
        "Mints a run token for one running step and one named state `{step_id, state_name, ttl_seconds?, hold_until_apply?}`: operator rights on that state's backend routes (HTTP Basic, token as password) until the step or run ends. `hold_until_apply` (the plan step's field) makes the run hold the state until a later step writes it and ends, or the run ends: 423 `iac_state_locked` when another holder has it locked or another run holds it.",
      params: internalRunPath,
      preValidation: refuseNul,
      body: mintIacStateAccessBody,
      responses: { 201: MINTED, 404: NOT_FOUND, 409: MINT_409, 422: INVALID, 423: MINT_423 },
      async handle(ctx, { params, body }) {
        ctx.status = 201;
        ctx.body = await tokens.mint(
          params.run_id,
          holder(ctx),
          {
            kind: 'iac_state',
            stepId: body.step_id,
            stateName: body.state_name,
            ttlSeconds: body.ttl_seconds,
            holdUntilApply: body.hold_until_apply,
          },
          ctx.state.audit,
        );
      },
    }),
    'DELETE /internal/runs/{run_id}/iac-state-access/{token_id}': route({
      summary: 'Revokes a state backend token of this run (again: no change).',
      params: runTokenPath,
      responses: { 204: { description: 'Revoked' }, 404: REVOKE_404, 409: REVOKE_409, 422: INVALID },
      async handle(ctx, { params }) {
        await tokens.revoke(params.run_id, holder(ctx), 'iac_state', params.token_id, ctx.state.audit);
        ctx.status = 204;
      },
    }),
    'POST /internal/runs/{run_id}/registry-access': route({
      summary:
        'Mints a registry token for one running container-backed step `{step_id, ttl_seconds?}`, scope `registry:step:<org_slug>`, until the step or run ends.',
      params: internalRunPath,
      preValidation: refuseNul,
      body: mintRegistryAccessBody,
      responses: { 201: MINTED, 404: NOT_FOUND, 409: MINT_409, 422: INVALID },
      async handle(ctx, { params, body }) {
        ctx.status = 201;
        ctx.body = await tokens.mint(
          params.run_id,
          holder(ctx),
          { kind: 'registry', stepId: body.step_id, ttlSeconds: body.ttl_seconds },
          ctx.state.audit,
        );
      },
    }),
    'DELETE /internal/runs/{run_id}/registry-access/{token_id}': route({
      summary: 'Revokes a registry token of this run (again: no change).',
      params: runTokenPath,
      responses: { 204: { description: 'Revoked' }, 404: REVOKE_404, 409: REVOKE_409, 422: INVALID },
      async handle(ctx, { params }) {
        await tokens.revoke(params.run_id, holder(ctx), 'registry', params.token_id, ctx.state.audit);
        ctx.status = 204;
      },
    }),
  };
}
