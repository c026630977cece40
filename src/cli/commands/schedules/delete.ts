import { deleteVerb } from '../delete-verbs.js';
import { scheduleArgument, scheduleId } from './resolve.js';

/** `svc schedules delete SCHEDULE`: `DELETE /schedules/{schedule_id}` (soft). */
export const { define, invoke } = deleteVerb({
  noun: 'schedule',
  collection: '/schedules',
  idOf: scheduleId,
  effect: 'it stops firing',
  description: 'Soft-delete a schedule: it stops firing (restorable through the API).',
  argument: scheduleArgument,
});
