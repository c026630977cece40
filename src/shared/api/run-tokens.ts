import { z } from 'zod';
import { IAC_STATE_NAME } from '../iac/state-name.js';
import { pathId } from './id-schemas.js';

/**
 * Wire schemas of the run-token callbacks (`/internal/runs/{run_id}/iac-state-access`,
 * `…/registry-access`): the worker holding a run mints a token for one step of it, which the step's
 * container presents (HTTP Basic, token as password) to the IaC state backend or the registry proxy.
 * Fenced like the other mutating callbacks (`X-Worker-Id`, `X-Run-Attempt`).
 */

export const RUN_TOKEN_KINDS = ['iac_state', 'registry'] as const;
export type RunTokenKind = (typeof RUN_TOKEN_KINDS)[number];

const stepId = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/);
/** A shorter life than the daemon's `SERVICE_RUN_TOKEN_TTL_SECONDS`; longer asks are cut to it. */
const ttlSeconds = z.number().int().min(1).max(86_400).optional();

export const runTokenPath = z.object({ run_id: pathId, token_id: pathId });

export const mintIacStateAccessBody = z
  .object({
    step_id: stepId,
    state_name: z.string().regex(IAC_STATE_NAME),
    ttl_seconds: ttlSeconds,
    hold_until_apply: z
      .boolean()
      .optional()
      .describe(
        "The plan step's `hold_until_apply`: the run holds the state from now until a later step writes it and ends, or the run ends",
      ),
  })
  .strict();

export const mintRegistryAccessBody = z.object({ step_id: stepId, ttl_seconds: ttlSeconds }).strict();

/** A token as its minting answers it: the plaintext is shown this once and never stored. */
export const mintedRunToken = z.object({
  id: z.string(),
  token: z.string(),
  kind: z.enum(RUN_TOKEN_KINDS),
  run_id: z.string(),
  step_id: z.string(),
  attempt: z.number().int(),
  /** `iac_state:<state_name>` or `registry:step:<org_slug>`. */
  scope: z.string(),
  state_name: z.string().nullable(),
  expires_at: z.string(),
});
export type MintedRunToken = z.infer<typeof mintedRunToken>;
