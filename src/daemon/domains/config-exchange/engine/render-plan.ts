import type { PlannedChange, PlanSummary } from '../../../../shared/api/config-exchange.js';

const SIGN = { create: '+', update: '~', delete: '-' } as const;
const VERB = { create: 'will be created', update: 'will be updated in place', delete: 'will be destroyed' } as const;

function show(value: unknown): string {
  return value === undefined ? 'null' : JSON.stringify(value);
}

export function summaryLine(summary: PlanSummary): string {
  if (summary.add + summary.change + summary.destroy === 0) return 'No changes. The configuration matches the bundle.';
  return `Plan: ${summary.add} to add, ${summary.change} to change, ${summary.destroy} to destroy.`;
}

/**
 * The plan as `terraform plan` shows one: each change headed by its sign, family and key, its fields
 * below (`+` new, `~` changed with `before -> after`, `-` removed), then the summary line.
 */
export function renderPlan(
  changes: readonly PlannedChange[],
  unmanaged: readonly { family: string; key: string }[],
  summary: PlanSummary,
): string {
  const lines: string[] = [];
  for (const change of changes) {
    lines.push(`${SIGN[change.action]} ${change.family} "${change.key}" ${VERB[change.action]}`);
    for (const diff of change.diffs) {
      if (change.action === 'create') lines.push(`    + ${diff.path} = ${show(diff.after)}`);
      else if (change.action === 'delete') lines.push(`    - ${diff.path} = ${show(diff.before)}`);
      else lines.push(`    ~ ${diff.path}: ${show(diff.before)} -> ${show(diff.after)}`);
    }
    if (change.needs_values) lines.push(`    ! values to set through the secrets API: ${change.needs_values.join(', ')}`);
    lines.push('');
  }
  if (unmanaged.length > 0) {
    lines.push(`${unmanaged.length} item(s) exist here but not in the bundle; left alone (plan with prune to destroy them):`);
    for (const item of unmanaged) lines.push(`    ? ${item.family} "${item.key}"`);
    lines.push('');
  }
  lines.push(summaryLine(summary));
  return `${lines.join('\n')}\n`;
}
