import type { ActionDefinition } from '../types.js';

/** Catalogue section "internal". */
export const internalActions: readonly ActionDefinition[] = [
  {
    action: 'internal:run_callbacks',
    policy: 'internal',
    routes: [
      'POST /internal/runs/{run_id}/assign-shared-worker',
      'POST /internal/runs/{run_id}/artifacts/upload',
      'POST /internal/runs/{run_id}/iac-state-access',
      'POST /internal/runs/{run_id}/registry-access',
      'GET /internal/runs/{run_id}/step-outputs',
      'POST /internal/runs/{run_id}/artifacts',
      'POST /internal/runs/{run_id}/approvals',
      'POST /internal/runs/{run_id}/step-runs',
      'PUT /internal/runs/{run_id}/run-vars',
      'GET /internal/runs/{run_id}/outputs',
      'POST /internal/runs/{run_id}/cancel',
      'POST /internal/runs/{run_id}/events',
      'POST /internal/runs',
      'DELETE /internal/runs/{run_id}/iac-state-access/{token_id}',
      'DELETE /internal/runs/{run_id}/registry-access/{token_id}',
      'PATCH /internal/step-runs/{step_run_id}',
      'PATCH /internal/approvals/{approval_id}',
      'GET /internal/runs/{run_id}',
      'PATCH /internal/runs/{run_id}',
    ],
  },
  {
    action: 'internal:monitor_callbacks',
    policy: 'internal',
    routes: [
      'POST /api/v1/monitor-samples/batch',
      'POST /api/v1/monitors',
      'POST /api/v1/monitors/finalize-for-run/{run_id}',
      'GET /api/v1/monitors/{monitor_db_id}',
      'PATCH /api/v1/monitors/{monitor_db_id}',
    ],
  },
  {
    action: 'internal:resolve',
    policy: 'internal',
    routes: [
      'GET /internal/flows/{flow_id}/notification-subscriptions',
      'GET /internal/runs/{run_id}/registry-credentials',
      'GET /internal/flows/{flow_id}/attachments',
      'POST /files/{file_id}/device-download-url',
      'GET /internal/runs/{run_id}/attachments',
      'GET /internal/secrets-backends',
      'GET /internal/variables',
      'GET /internal/notification-destinations/{destination_id}',
    ],
  },
  {
    action: 'internal:scheduler',
    policy: 'internal',
    routes: ['POST /internal/schedules/{schedule_id}/trigger', 'POST /internal/maintenance/tick', 'GET /internal/schedules/due'],
  },
  {
    action: 'internal:worker_registry',
    policy: 'internal',
    routes: ['POST /internal/workers/heartbeat', 'POST /internal/runtime/env-keys', 'DELETE /internal/runtime/env-keys/{worker_id}'],
  },
];
