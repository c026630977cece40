import type { ActionDefinition } from '../types.js';

/** Catalogue section "notifications". */
export const notificationsActions: readonly ActionDefinition[] = [
  {
    action: 'notification_destination:view',
    policy: 'viewer',
    note: 'Credentials appear only as secret references.',
    routes: [
      'GET /notifications/destination-types',
      'GET /notifications/flow-defaults',
      'GET /notifications/destinations',
      'GET /notifications/destinations/{destination_id}',
    ],
  },
  {
    action: 'notification_destination:manage',
    policy: 'admin',
    routes: [
      'POST /notifications/destinations/{destination_id}/duplicate',
      'POST /notifications/destinations/{destination_id}/restore',
      'POST /notifications/destinations',
      'PATCH /notifications/destinations/{destination_id}',
      'DELETE /notifications/destinations/{destination_id}',
    ],
  },
  {
    action: 'notification_destination:test',
    policy: 'admin',
    routes: ['POST /notifications/destinations/{destination_id}/test', 'POST /notifications/destinations/test-config'],
  },
  {
    action: 'notification_destination:purge',
    policy: 'admin',
    routes: ['DELETE /notifications/destinations/{destination_id}/permanent'],
  },
];
