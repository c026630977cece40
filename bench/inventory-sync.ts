import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { freePort, startServer } from './lib.js';
import { openScratchDatabase } from './scratch-database.js';
import { netboxDevice, netboxSite, startNetboxFixture } from './servers/netbox-fixture.js';

const DAEMON = fileURLToPath(new URL('../src/daemon/main.js', import.meta.url));
const PAGE = 1000;
/** The daemon's V8 heap is capped: a sync that held the provider's whole listing would not fit. */
const HEAP_MB = 96;

export interface InventorySyncOptions {
  readonly postgresUrl: string;
  readonly devices: number;
  readonly rounds: number;
}

/**
 * A full sync of `devices` devices from the NetBox-shaped fixture server (pages of 1000) into a daemon on
 * PostgreSQL, in devices/s, against a bare multi-row INSERT of the same rows (1000 a statement) into the
 * same table; aim >= 0.3. Each round syncs a fresh provider (every device created). The daemon runs with
 * its heap capped at 96 MB, and its resident memory is read from /proc before and at the peak: the sync
 * holds one page, whatever the provider's size.
 */
export async function inventorySyncBenchmark(line: (name: string, value: string) => void, options: InventorySyncOptions): Promise<void> {
  const scratch = await openScratchDatabase(options.postgresUrl, 'svc_bench_inventory');
  if (!scratch) return line('inventory-sync: sync of devices on PostgreSQL', `skipped (no server at ${options.postgresUrl})`);
  const { url: databaseUrl, db, idp, servers } = scratch;
  const netbox = await startNetboxFixture();
  try {
    netbox.sites.set(1, netboxSite(1, 'bench-site'));
    for (let id = 1; id <= options.devices; id++) netbox.devices.set(id, netboxDevice(id, `bench-${id}`, 1));
    const daemon = await startServer([`--max-old-space-size=${HEAP_MB}`, DAEMON], await freePort(), '/ready', {
      SERVICE_LOG_LEVEL: 'warn',
      SERVICE_DATABASE_URL: databaseUrl,
      SERVICE_IDP_ISSUER: idp.issuer,
      SERVICE_ORG_AUTO_JOIN: 'false',
      SERVICE_OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8',
      SERVICE_SECRETS_ENCRYPTION_KEY: 'a'.repeat(64),
    });
    servers.push(daemon);
    const [org] = await db('organizations').insert({ slug: 'bench', name: 'Bench' }).returning('id');
    const orgId = (org as { id: string }).id;
    const [user] = await db('users').insert({ sub: 'bench-admin', username: 'bench-admin' }).returning('id');
    await db('org_memberships').insert({ user_id: (user as { id: string }).id, org_id: orgId, role: 'admin', source: 'manual' });
    const token = await idp.mintAccessToken({ sub: 'bench-admin', username: 'bench-admin', realmRoles: [], expiresInSeconds: 3600 });
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'x-org-id': 'bench' };
    const call = async (path: string, body: unknown, status: number) => {
      const response = await fetch(`${daemon.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      const text = await response.text();
      if (response.status !== status) throw new Error(`POST ${path} answered ${response.status}: ${text}`);
      return JSON.parse(text) as Record<string, unknown>;
    };
    await call('/secrets', { name: 'netbox', values: { value: netbox.token } }, 201);

    const syncRates: number[] = [];
    const insertRates: number[] = [];
    const rss = { before: 0, peak: 0 };
    for (let round = 0; round < options.rounds; round++) {
      const created = await call(
        '/inventory/providers',
        { type: 'netbox', name: `bench-${round}`, config: { url: netbox.url, page_size: PAGE }, credential_ref: "{{ secret('netbox') }}" },
        201,
      );
      if (round === 0) rss.before = await memory(daemon.child.pid!, 'VmRSS');
      const started = performance.now();
      const synced = await call(`/inventory/providers/${encodeURIComponent(String(created.provider_id))}/sync`, {}, 200);
      syncRates.push(options.devices / ((performance.now() - started) / 1000));
      if ((synced.counts as { devices: { created: number } }).devices.created !== options.devices)
        throw new Error('the sync did not create every device');
      rss.peak = Math.max(rss.peak, await memory(daemon.child.pid!, 'VmHWM'));
      // Out of the way of the next round's names (live names are unique per organization).
      await db('devices').where({ org_id: orgId }).delete();
      await db('sites').where({ org_id: orgId }).delete();

      const rows = [...netbox.devices.values()].map((device) => ({
        org_id: orgId,
        name: device.name,
        hostname: String((device.primary_ip as { address: string }).address).split('/')[0],
        platform: 'ios-xe',
        role: 'core',
        serial: device.serial,
        tags: JSON.stringify(['lab']),
        attributes_json: JSON.stringify({ status: 'active', device_type: 'C9300', custom_fields: {} }),
        provider_id: `bare:${round}`,
        external_id: String(device.id),
      }));
      const inserting = performance.now();
      for (let from = 0; from < rows.length; from += PAGE) await db('devices').insert(rows.slice(from, from + PAGE));
      insertRates.push(options.devices / ((performance.now() - inserting) / 1000));
      await db('devices').where({ org_id: orgId }).delete();
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const ratios = syncRates.map((rate, i) => rate / insertRates[i]!);
    line(`inventory sync, ${options.devices} devices (devices/s, median)`, median(syncRates).toFixed(0));
    line('bare INSERT of the same rows, 1000 a statement (rows/s, median)', median(insertRates).toFixed(0));
    line('ratio sync / bare INSERT (aim >= 0.3)', median(ratios).toFixed(2));
    line(
      `daemon RSS before -> peak during syncs (MB; heap capped at ${HEAP_MB})`,
      `${(rss.before / 1024).toFixed(0)} -> ${(rss.peak / 1024).toFixed(0)}`,
    );
  } finally {
    await netbox.close();
    await scratch.close();
  }
}

/** A /proc/<pid>/status figure in kB (VmRSS now, VmHWM the peak so far). */
async function memory(pid: number, field: 'VmRSS' | 'VmHWM'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return match ? Number(match[1]) : 0;
}
