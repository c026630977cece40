import type { ActionDefinition } from '../types.js';

/** Catalogue section "flows". */
export const flowsActions: readonly ActionDefinition[] = [
  {
    action: 'flow:view',
    policy: 'viewer',
    routes: [
      'GET /flows/step-handler-types/{handler_id}/docs',
      'POST /flows/{flow_id}/interface/preview-resolve',
      'POST /flows/{flow_id}/interface/validate',
      'POST /flows/{flow_id}/interface/options',
      'GET /flows/{flow_id}/versions/compare',
      'GET /flows/{flow_id}/versioning-info',
      'GET /flows/{flow_id}/launch-contract',
      'GET /flow-interface/option-sources',
      'GET /flows/{flow_id}/yaml-preview',
      'GET /flow-interface/field-types',
      'GET /flows/{flow_id}/interface',
      'POST /flows/{flow_id}/validate',
      'GET /flows/{flow_id}/versions',
      'GET /flows/{flow_id}/versions/{version}',
      'GET /flows/{flow_id}',
      'GET /flows',
    ],
  },
  {
    action: 'flow:manage',
    policy: 'operator',
    note: 'Host-access container options and egress widening narrowed to platform admin.',
    routes: [
      'POST /flows/{flow_id}/revert-draft',
      'PATCH /flows/{flow_id}/manual-runs',
      'POST /flows/{flow_id}/duplicate',
      'POST /flows/{flow_id}/restore',
      'POST /flows/{flow_id}/draft',
      'PATCH /flows/{flow_id}/pin',
      'POST /flows/{flow_id}/restore/{version}',
      'PUT /flows/{flow_id}',
      'DELETE /flows/{flow_id}',
      'POST /flows',
    ],
  },
  {
    action: 'flow:commit',
    policy: 'operator',
    note: 'draft becomes a new committed version.',
    routes: ['POST /flows/{flow_id}/commit'],
  },
  {
    action: 'flow:purge',
    policy: 'admin',
    routes: ['DELETE /flows/{flow_id}/permanent'],
  },
  {
    action: 'flow_attachment:view',
    policy: 'viewer',
    routes: [
      'GET /flows/{flow_id}/attachments/{attachment_id}/download',
      'GET /flows/{flow_id}/attachments',
      'GET /flows/{flow_id}/attachments/{attachment_id}',
    ],
  },
  {
    action: 'flow_attachment:manage',
    policy: 'operator',
    routes: [
      'POST /flows/{flow_id}/attachments/bulk-rename',
      'POST /flows/{flow_id}/attachments/bulk',
      'POST /flows/{flow_id}/attachments',
      'PATCH /flows/{flow_id}/attachments/{attachment_id}',
      'DELETE /flows/{flow_id}/attachments/{attachment_id}',
    ],
  },
  {
    action: 'flow_subscription:view',
    policy: 'viewer',
    routes: ['GET /flows/{flow_id}/notifications/subscriptions'],
  },
  {
    action: 'flow_subscription:manage',
    policy: 'operator',
    routes: [
      'POST /flows/{flow_id}/notifications/subscriptions',
      'PATCH /flows/{flow_id}/notifications/subscriptions/{subscription_id}',
      'DELETE /flows/{flow_id}/notifications/subscriptions/{subscription_id}',
    ],
  },
  {
    action: 'flow_git:view',
    policy: 'viewer',
    routes: ['GET /flows/{flow_id}/git-sync-history'],
  },
  {
    action: 'flow_git:manage',
    policy: 'operator',
    note: 'a pull overwrites the definition and may discard an uncommitted draft.',
    routes: ['POST /flows/{flow_id}/sync-from-git', 'POST /flows/{flow_id}/git/detach', 'PATCH /flows/{flow_id}/git'],
  },
  {
    action: 'flow_git:push',
    policy: 'operator',
    note: 'force may overwrite the remote branch.',
    routes: ['POST /flows/{flow_id}/push-to-git'],
  },
];
