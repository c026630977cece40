import type { ActionDefinition } from '../types.js';

/** Catalogue section "system". */
export const systemActions: readonly ActionDefinition[] = [
  {
    action: 'system:health',
    policy: 'public',
    note: 'Liveness and readiness.',
    routes: ['GET /health', 'GET /ready'],
  },
  {
    action: 'system:docs',
    policy: 'public',
    note: 'The OpenAPI schema carries the effective security requirement per operation.',
    routes: ['GET /docs/oauth2-redirect', 'GET /openapi.json', 'GET /redoc', 'GET /docs'],
  },
];
