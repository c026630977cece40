import type { IacState, IacStateList, IacStateVersion, IacStateVersionList } from '../../../shared/api/iac-states.js';
import type { Command } from 'commander';
import { usageError } from '../../errors.js';
import type { Column } from '../../runtime/table.js';

/** The IaC state routes' wire shapes, inferred from the schemas the daemon answers with (types only: no zod at run time). */
export type { IacState, IacStateList, IacStateVersion, IacStateVersionList };

/** STATE, the argument of the verbs that act on one state: its name (the backend's address names it so). */
export const stateArgument = (command: Command) => command.argument('<state>', 'state name');

/** VERSION as typed: a version number from 1 (exit 2 otherwise). */
export function versionNumber(text: string): number {
  if (!/^[1-9]\d{0,8}$/.test(text)) throw usageError(`VERSION must be a version number from 1, not "${text}"`);
  return Number(text);
}

const holder = (s: IacState) => (s.lock === null ? null : (s.lock.who ?? s.lock.locked_by));

export const STATE_COLUMNS: Column<IacState>[] = [
  { header: 'NAME', value: (s) => s.name },
  { header: 'VERSION', value: (s) => s.latest_version },
  { header: 'SERIAL', value: (s) => s.serial },
  { header: 'SIZE', value: (s) => s.size },
  { header: 'LOCKED BY', value: holder },
  { header: 'UPDATED', value: (s) => s.updated_at },
];

export const VERSION_COLUMNS: Column<IacStateVersion>[] = [
  { header: 'VERSION', value: (v) => v.version },
  { header: 'SERIAL', value: (v) => v.serial },
  { header: 'SOURCE', value: (v) => (v.rolled_back_from === null ? v.source : `${v.source} of ${v.rolled_back_from}`) },
  { header: 'SIZE', value: (v) => v.size },
  { header: 'BY', value: (v) => v.created_by },
  { header: 'RUN', value: (v) => v.run_id },
  { header: 'CREATED', value: (v) => v.created_at },
];

/** One state as `field: value` lines: its newest version, who holds its lock, and a run's hold on it. */
export const stateFields = (s: IacState) =>
  [
    ['name', s.name],
    ['latest_version', s.latest_version],
    ['serial', s.serial],
    ['lineage', s.lineage],
    ['size', s.size],
    ['sha256', s.sha256],
    ['locked', s.lock === null ? 'no' : `yes, ${s.lock.operation ?? 'lock'} ${s.lock.id} by ${holder(s) ?? '?'} since ${s.lock.locked_at}`],
    ['lock_run_id', s.lock?.run_id],
    [
      'held',
      s.hold === null ? 'no' : `by run ${s.hold.run_id} (step ${s.hold.step_id ?? '?'}) since ${s.hold.held_at}, until it applies or ends`,
    ],
    ['updated_at', s.updated_at],
  ] as const;
