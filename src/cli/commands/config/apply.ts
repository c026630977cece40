import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { runOperation } from './operation.js';

export interface ConfigApplyOptions {
  readonly planId: string;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description(
        'Apply a saved plan (all or nothing), and wait for it. Refused (409 stale_plan) when the configuration changed since the plan.',
      )
      .argument('<plan_id>', 'the plan id `svc config plan` printed'),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runConfigApply({ planId: positionals[0]!, json: flag.json(raw) }, ctx);

interface ApplyResult {
  readonly applied: readonly { family: string; key: string; action: 'create' | 'update' | 'delete' }[];
  readonly summary: { add: number; change: number; destroy: number };
}

const SIGN = { create: '+', update: '~', delete: '-' } as const;

/** `POST /config-exchange/operations {mode: apply, plan_id}`, waited for; what changed, one line each, then the counts. */
export async function runConfigApply(options: ConfigApplyOptions, ctx: Context): Promise<void> {
  const operation = await runOperation(ctx, { mode: 'apply', plan_id: options.planId });
  const result = operation.result as unknown as ApplyResult;
  if (options.json) return printJson(ctx.io, { correlation_id: operation.correlation_id, ...result });
  for (const change of result.applied) ctx.io.out(`${SIGN[change.action]} ${change.family} "${change.key}"\n`);
  const { add, change, destroy } = result.summary;
  ctx.io.out(`Apply complete! Resources: ${add} added, ${change} changed, ${destroy} destroyed.\n`);
}
