import type { Schedule, ScheduleList, ValidateCronAnswer } from '../../../shared/api/schedules.js';
import type { Column } from '../../runtime/table.js';

/** The schedule routes' wire shapes, inferred from the schemas the daemon answers with (types only: no zod at run time). */
export type { Schedule, ScheduleList, ValidateCronAnswer };

const yes = (value: boolean) => (value ? 'yes' : 'no');
const json = (value: unknown) => JSON.stringify(value);
/** A null pin runs the newest committed version. */
const versionText = (version: number | null) => (version === null ? 'latest' : String(version));

export const SCHEDULE_COLUMNS: Column<Schedule>[] = [
  { header: 'ID', value: (s) => s.id },
  { header: 'NAME', value: (s) => s.name },
  { header: 'ENABLED', value: (s) => yes(s.enabled) },
  { header: 'CRON', value: (s) => s.cron },
  { header: 'ZONE', value: (s) => s.timezone },
  { header: 'FLOW', value: (s) => s.flow_name ?? s.flow_id },
  { header: 'NEXT', value: (s) => s.next_fire_at },
  { header: 'LAST', value: (s) => s.last_fired_at },
  { header: 'LAST ERROR', value: (s) => s.last_fire_error?.code ?? null },
];

/** One schedule as `field: value` lines. */
export const scheduleFields = (s: Schedule) =>
  [
    ['id', s.id],
    ['name', s.name],
    ['description', s.description],
    ['enabled', yes(s.enabled)],
    ['cron', `${s.cron} (${s.cron_description})`],
    ['timezone', s.timezone],
    ['flow', s.flow_id === null ? '(purged)' : `${s.flow_name ?? '(deleted)'} (${s.flow_id})`],
    ['flow_version', versionText(s.flow_version)],
    ['params', json(s.params)],
    ['targets', json(s.targets)],
    ['misfire_policy', s.misfire_policy],
    ['next_fire_at', s.next_fire_at],
    ['last_fired_at', s.last_fired_at],
    ['last_run_id', s.last_run_id],
    [
      'last_fire_error',
      s.last_fire_error === null ? null : `${s.last_fire_error.code}: ${s.last_fire_error.message} (${s.last_fire_error.due_at})`,
    ],
    ['created_at', s.created_at],
    ['updated_at', s.updated_at],
    ...(s.deleted_at === null ? [] : [['deleted_at', s.deleted_at] as const]),
  ] as const;
