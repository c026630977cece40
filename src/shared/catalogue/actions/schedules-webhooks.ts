import type { ActionDefinition } from '../types.js';

/** Catalogue section "schedules and webhooks". */
export const schedulesWebhooksActions: readonly ActionDefinition[] = [
  {
    action: 'schedule:view',
    policy: 'viewer',
    routes: ['POST /schedules/validate-cron', 'GET /schedules/{schedule_id}', 'GET /schedules'],
  },
  {
    action: 'schedule:manage',
    policy: 'operator',
    routes: [
      'POST /schedules/{schedule_id}/restore',
      'PATCH /schedules/{schedule_id}',
      'DELETE /schedules/{schedule_id}',
      'POST /schedules',
    ],
  },
  {
    action: 'schedule:trigger',
    policy: 'operator',
    routes: ['POST /schedules/{schedule_id}/run'],
  },
  {
    action: 'schedule:purge',
    policy: 'admin',
    routes: ['DELETE /schedules/{schedule_id}/permanent'],
  },
  {
    action: 'webhook:view',
    policy: 'viewer',
    routes: ['GET /webhooks/{webhook_id}', 'GET /webhooks'],
  },
  {
    action: 'webhook:manage',
    policy: 'operator',
    routes: [
      'POST /webhooks/{webhook_id}/restore',
      'POST /webhooks/{webhook_id}/test',
      'PATCH /webhooks/{webhook_id}',
      'DELETE /webhooks/{webhook_id}',
      'POST /webhooks',
    ],
  },
  {
    action: 'webhook:rotate_secret',
    policy: 'admin',
    routes: ['POST /webhooks/{webhook_id}/rotate-secret'],
  },
  {
    action: 'webhook:purge',
    policy: 'admin',
    routes: ['DELETE /webhooks/{webhook_id}/permanent'],
  },
  {
    action: 'webhook:receive',
    policy: 'public',
    routes: ['POST /hooks/{path_token}'],
  },
  {
    action: 'webhook_delivery:view',
    policy: 'operator',
    note: 'source address, signature result, response status, run ids, payload hash; never bodies.',
    routes: ['GET /webhooks/{webhook_id}/deliveries'],
  },
];
