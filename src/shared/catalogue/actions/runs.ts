import type { ActionDefinition } from '../types.js';

/** Catalogue section "run and approval". */
export const runsActions: readonly ActionDefinition[] = [
  {
    action: 'run:stream',
    policy: 'custom',
    routes: ['GET /bff/runs/{run_id}/events/stream', 'GET /runs/{run_id}/monitors/stream'],
  },
  {
    action: 'run:view',
    policy: 'viewer',
    routes: [
      'GET /runs/{run_id}/artifacts/{artifact_id}/download',
      'GET /runs/{run_id}/monitors/{monitor_id}/samples',
      'GET /runs/{run_id}/artifacts/download-all',
      'GET /runs/{run_id}/monitors',
      'GET /runs/{run_id}/events',
      'GET /runs/filter-options',
      'GET /runs/{run_id}/monitors/{monitor_id}',
      'GET /runs/{run_id}',
      'GET /runs',
    ],
  },
  {
    action: 'run:trigger',
    policy: 'operator',
    note: 'query `force=true` narrowed to platform admin.',
    routes: ['POST /runs'],
  },
  {
    action: 'run:control',
    policy: 'operator',
    note: 'soft delete.',
    routes: [
      'POST /runs/{run_id}/restore',
      'POST /runs/{run_id}/cancel',
      'POST /runs/{run_id}/resume',
      'POST /runs/{run_id}/pause',
      'PATCH /runs/{run_id}',
      'DELETE /runs/{run_id}',
    ],
  },
  {
    action: 'run:purge',
    policy: 'admin',
    routes: ['DELETE /runs/{run_id}/permanent'],
  },
  {
    action: 'approval:view',
    policy: 'viewer',
    routes: [
      'GET /approvals/node-defaults',
      'GET /runs/{run_id}/approvals',
      'GET /approvals/pending',
      'GET /approvals/{approval_id}',
      'GET /approvals',
    ],
  },
  {
    action: 'approval:decide',
    policy: 'approver',
    routes: ['POST /runs/{run_id}/approvals/{approval_id}/decision', 'POST /approvals/{approval_id}/decision'],
  },
];
