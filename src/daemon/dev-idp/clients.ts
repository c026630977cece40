import type { ClientMetadata } from 'oidc-provider';

/** Client ids of the embedded provider, as the realm of a real deployment names them. */
export const DEV_CLIENTS = Object.freeze({
  ui: 'service-ui',
  api: 'service-api',
  automation: 'service-automation',
  cli: 'svc-cli',
} as const);

/** The dev-only secret of the confidential `service-automation` client. */
export const DEV_AUTOMATION_CLIENT_SECRET = 'service-automation-dev-secret';

/**
 * Keycloak names a client's service account `service-account-<client id>` and gives it a user id of its
 * own; like any user it may be put in groups, which its tokens then carry.
 */
export const DEV_SERVICE_ACCOUNT = Object.freeze({
  sub: '5d0c8a1e-0100-4000-8000-000000000100',
  username: `service-account-${DEV_CLIENTS.automation}`,
  groups: Object.freeze(['/automation']),
});

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/**
 * `service-api` is only a token audience (a resource indicator), so it has no client here.
 * `svc-cli` is native so that loopback redirects on any port match `http://127.0.0.1/callback`.
 */
export function devClientMetadata(): ClientMetadata[] {
  return [
    {
      client_id: DEV_CLIENTS.ui,
      client_name: 'Service UI (dev)',
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code'],
      response_types: ['code'],
      redirect_uris: ['http://127.0.0.1/callback', 'http://localhost/callback'],
    },
    {
      client_id: DEV_CLIENTS.automation,
      client_name: 'Service automation (dev)',
      client_secret: DEV_AUTOMATION_CLIENT_SECRET,
      // oidc-provider accepts client_secret_post as well for a client registered with client_secret_basic.
      token_endpoint_auth_method: 'client_secret_basic',
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
    },
    {
      client_id: DEV_CLIENTS.cli,
      client_name: 'svc CLI (dev)',
      application_type: 'native',
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT],
      response_types: ['code'],
      redirect_uris: ['http://127.0.0.1/callback'],
    },
  ];
}
