import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printRecord } from '../../runtime/table.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { approvalArgument, approvalFields, type Approval } from './types.js';

export interface ApprovalsGetOptions {
  readonly approval: string;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(approvalArgument(command.description('One approval: its gate, its state and every decision (who, when, why).')));
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runApprovalsGet(parseApprovalsGetOptions(positionals[0]!, raw), ctx);

export function parseApprovalsGetOptions(approval: string, raw: Record<string, unknown>): ApprovalsGetOptions {
  return { approval, json: flag.json(raw) };
}

/** `GET /approvals/{approval_id}`. */
export async function runApprovalsGet(options: ApprovalsGetOptions, ctx: Context): Promise<void> {
  const approval = (await ctx.apiClient().request({ method: 'GET', path: `/approvals/${enc(options.approval)}` })).body as Approval;
  if (options.json) return printJson(ctx.io, approval);
  printRecord(ctx.io, approvalFields(approval));
}
