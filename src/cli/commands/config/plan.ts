import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson, readStdin, styles } from '../../runtime/io.js';
import { collect, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { runOperation } from './operation.js';

export interface ConfigPlanOptions {
  readonly file: string;
  readonly org: string | undefined;
  readonly families: readonly string[];
  readonly prune: boolean;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description(
        'Plan a bundle against this installation: what would be created (+), updated (~) and destroyed (-), and the plan id `svc config apply` takes.',
      )
      .argument('<bundle>', 'the bundle file (YAML), or - for stdin')
      .option('--family <name>', 'only this family of the bundle (repeatable)', collect)
      .option('--prune', 'also destroy what exists here but not in the bundle (default: left alone)'),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runConfigPlan(parseConfigPlanOptions(positionals[0]!, raw), ctx);

export function parseConfigPlanOptions(file: string, raw: Record<string, unknown>): ConfigPlanOptions {
  return { file, org: flag.string(raw, 'org'), families: flag.strings(raw, 'family'), prune: raw.prune === true, json: flag.json(raw) };
}

/** `POST /config-exchange/operations {mode: plan}`, waited for; the rendered plan on stdout, the plan id on stderr. */
export async function runConfigPlan(options: ConfigPlanOptions, ctx: Context): Promise<void> {
  const bundle = options.file === '-' ? await readStdin(ctx.io) : await readFile(options.file, 'utf8');
  const body: Record<string, unknown> = { mode: 'plan', bundle, prune: options.prune };
  if (options.org) body.org = options.org;
  if (options.families.length > 0) body.families = options.families;
  const plan = (await runOperation(ctx, body)).result as { plan_id: string; text: string };
  if (options.json) return printJson(ctx.io, plan);
  const paint = styles(ctx.io.colorOut);
  const coloured = plan.text
    .split('\n')
    .map((line) =>
      /^\s*\+/.test(line) ? paint.green(line) : /^\s*-/.test(line) ? paint.red(line) : /^\s*~/.test(line) ? paint.yellow(line) : line,
    )
    .join('\n');
  ctx.io.out(coloured);
  ctx.io.err(`Saved plan ${plan.plan_id}: apply it with \`svc config apply ${plan.plan_id}\`.\n`);
}
