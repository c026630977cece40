import type { SecretBackendTypeView } from '../../../../shared/api/secrets.js';

/** The backend types the API knows, and whether this build can serve each. */
export const BACKEND_TYPES: readonly SecretBackendTypeView[] = [
  {
    type: 'builtin',
    name: 'Built-in',
    description: 'Values encrypted with AES-256-GCM in the service database under SERVICE_SECRETS_ENCRYPTION_KEY. Takes no configuration.',
    available: true,
  },
  {
    type: 'vault',
    name: 'HashiCorp Vault / OpenBao (KV v2)',
    description:
      'An external KV v2 engine, one KV secret per folder. Not available in this build: creating one answers 422 unsupported_backend_type.',
    available: false,
  },
];

export function isAvailableType(type: string): boolean {
  return BACKEND_TYPES.some((t) => t.type === type && t.available);
}
