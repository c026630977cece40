import type { Knex } from 'knex';
import type { JwtVerifier } from '../../auth/jwt/jwt-verifier.js';
import type { RegistryApi } from '../registry/registry-api.js';
import type { BackendHealthReport } from '../secrets/module.js';
import type { WorkersRepo } from '../workers/workers-repo.js';
import type { HealthProbe } from './health-runner.js';

/** The database: one round trip on the pool, as any request makes. */
export function databaseProbe(knex: Knex): HealthProbe {
  return {
    name: 'database',
    run: async () => {
      try {
        await knex.raw('SELECT 1');
      } catch {
        // A lost link fails in more than one way (connect or acquire limit, a reset socket): all say the same.
        return { status: 'down', detail: { reason: 'database_unavailable' } };
      }
      return { status: 'ok', detail: {} };
    },
  };
}

/** The identity provider: its signing keys as token verification holds them (no request when they are at hand). */
export function identityProviderProbe(jwt: JwtVerifier | undefined, issuer: string | undefined): HealthProbe {
  return {
    name: 'identity_provider',
    run: async () => {
      if (!jwt || !issuer) return { status: 'not_configured', detail: {} };
      await jwt.keysReady();
      return { status: 'ok', detail: { issuer } };
    },
  };
}

/** The secret backends: each one's own health; the default one failing is `down` (new secrets cannot be stored). */
export function secretBackendsProbe(health: () => Promise<BackendHealthReport[]>): HealthProbe {
  return {
    name: 'secret_backends',
    run: async () => {
      const backends = await health();
      const failing = backends.filter((b) => !b.ok);
      const status = failing.some((b) => b.is_default) ? 'down' : failing.length > 0 ? 'degraded' : 'ok';
      return {
        status,
        detail: { backends: backends.map(({ name, type, is_default, ok, detail }) => ({ name, type, is_default, ok, detail })) },
      };
    },
  };
}

/** Workers: live when their last heartbeat is within one lease; none live is `degraded` (queued runs wait). */
export function workersProbe(workers: WorkersRepo, leaseSeconds: number): HealthProbe {
  return {
    name: 'workers',
    run: async () => {
      const { total, online, last_seen_at } = await workers.counts(leaseSeconds);
      const detail = {
        live: online,
        stale: total - online,
        last_heartbeat_at: last_seen_at === null ? null : new Date(last_seen_at).toISOString(),
        ...(online === 0 ? { reason: 'no_live_worker' } : {}),
      };
      return { status: online > 0 ? 'ok' : 'degraded', detail };
    },
  };
}

/** The platform registry: not configured without SERVICE_REGISTRY_URL, else its API's answer to `GET /v2/`. */
export function registryProbe(api: RegistryApi, url: string | undefined): HealthProbe {
  return {
    name: 'registry',
    run: async () => {
      if (url === undefined) return { status: 'not_configured', detail: {} };
      return { status: 'ok', detail: { answered: await api.ping() } };
    },
  };
}
