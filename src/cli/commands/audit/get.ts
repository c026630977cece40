import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printRecord } from '../../runtime/table.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { auditFields, type AuditLogEntry } from './types.js';

export interface AuditGetOptions {
  readonly id: string;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command.description('One audit entry: who did what to which resource, when, from where, and its details.').argument('<id>', 'entry id'),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runAuditGet({ id: positionals[0]!, json: flag.json(raw) }, ctx);

/** `GET /audit-logs/{audit_id}`. */
export async function runAuditGet(options: AuditGetOptions, ctx: Context): Promise<void> {
  const entry = (await ctx.apiClient().request({ method: 'GET', path: `/audit-logs/${enc(options.id)}` })).body as AuditLogEntry;
  if (options.json) return printJson(ctx.io, entry);
  printRecord(ctx.io, auditFields(entry));
}
