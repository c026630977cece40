import type { ActionDefinition } from '../types.js';

/** Catalogue section "auth". */
export const authActions: readonly ActionDefinition[] = [
  {
    action: 'auth:config',
    policy: 'public',
    routes: ['GET /auth/bff/validate', 'GET /auth/config'],
  },
  {
    action: 'auth:me',
    policy: 'authenticated',
    routes: ['GET /auth/capabilities', 'POST /auth/bff/ticket', 'GET /auth/me'],
  },
];
