import type { Destination, DestinationList, Subscription, TestAnswer } from '../../../shared/api/notifications.js';
import type { Column } from '../../runtime/table.js';

/** The notification routes' wire shapes, inferred from the daemon's schemas (types only: no zod at run time). */
export type { Destination, DestinationList, Subscription, TestAnswer };

export const DESTINATION_COLUMNS: Column<Destination>[] = [
  { header: 'ID', value: (d) => d.id },
  { header: 'NAME', value: (d) => d.name },
  { header: 'KIND', value: (d) => d.kind },
  { header: 'ENABLED', value: (d) => (d.enabled ? 'yes' : 'no') },
  { header: 'DEFAULT EVENTS', value: (d) => d.default_events.join(',') || null },
  { header: 'DELETED', value: (d) => d.deleted_at },
];
