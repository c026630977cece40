import { call, createSecret, startWorld, type Answer, type World } from './webhooks-fixtures.js';
import { netboxDevice, netboxSite, startNetboxFixture, type NetboxFixture } from './netbox-fixture.js';

/**
 * What the inventory provider tests share: the webhook tests' world (acme with alice admin, dave
 * operator, carol viewer; globex with bob), a NetBox-shaped fixture server, the daemon allowed to reach
 * loopback (where the fixture listens) and retrying without waiting long, and the token as a secret.
 */
export interface ProviderWorld extends World {
  readonly netbox: NetboxFixture;
  /** The reference to acme's secret holding the fixture's token. */
  readonly tokenRef: string;
}

export async function startProviderWorld(env: Record<string, string> = {}): Promise<ProviderWorld> {
  const netbox = await startNetboxFixture();
  const world = await startWorld({
    SERVICE_OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8',
    SERVICE_INVENTORY_HTTP_RETRY_BASE_MS: '1',
    SERVICE_INVENTORY_HTTP_RETRIES: '2',
    ...env,
  });
  await createSecret(world, 'alice', 'netbox-token', netbox.token);
  return {
    ...world,
    netbox,
    tokenRef: "{{ secret('netbox-token') }}",
    close: async () => {
      await world.close();
      await netbox.close();
    },
  };
}

/** Fills the fixture: `sites` sites (ids 1..), `devices` devices spread over them, `vlans` VLANs. */
export function seedNetbox(netbox: NetboxFixture, counts: { sites: number; devices: number; vlans: number }): void {
  for (let id = 1; id <= counts.sites; id++) netbox.sites.set(id, netboxSite(id, `site-${id}`));
  for (let id = 1; id <= counts.devices; id++) netbox.devices.set(id, netboxDevice(id, `dev-${id}`, ((id - 1) % counts.sites) + 1));
  for (let id = 1; id <= counts.vlans; id++) {
    netbox.vlans.set(id, { id, vid: 100 + id, name: `vlan-${id}`, status: { value: 'active' }, last_updated: '2026-01-01T00:00:00Z' });
  }
}

/** Creates a NetBox provider in acme as alice; throws unless 201. */
export async function createNetboxProvider(
  world: ProviderWorld,
  name: string,
  config: Record<string, unknown> = {},
): Promise<Record<string, any>> {
  const created = await call(world, 'alice', 'POST', '/inventory/providers', {
    type: 'netbox',
    name,
    config: { url: world.netbox.url, page_size: 50, ...config },
    credential_ref: world.tokenRef,
  });
  if (created.status !== 201) throw new Error(`POST /inventory/providers answered ${created.status}: ${JSON.stringify(created.body)}`);
  return created.body;
}

/** The path of a provider's route. */
export const providerPath = (providerId: string, rest = '') => `/inventory/providers/${encodeURIComponent(providerId)}${rest}`;

export async function sync(world: World, providerId: string, body: Record<string, unknown> = {}): Promise<Answer> {
  return call(world, 'alice', 'POST', providerPath(providerId, '/sync'), body);
}
