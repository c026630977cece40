import type { StoreCheck } from '../../storage/blob-store.js';
import type { RepositoriesRepo, RepositoryRow } from '../files/repositories-repo.js';
import type { RepositoryStores } from '../files/repository-stores.js';
import type { HealthProbe } from './health-runner.js';

export interface FileRepositoriesProbeOptions {
  /** At most this many repositories are checked (the oldest); the rest are counted. */
  readonly max: number;
  /** Each repository's check's time limit, below the report's so the slow ones are named. */
  readonly itemTimeoutMs: number;
}

type Outcome = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/**
 * The file repositories: each store's own connection check (reach, write, read, delete a probe object),
 * all at once, each within its time limit. One down is `degraded`; every one checked down is `down`.
 */
export function fileRepositoriesProbe(
  repos: RepositoriesRepo,
  stores: RepositoryStores,
  options: FileRepositoriesProbeOptions,
): HealthProbe {
  return {
    name: 'file_repositories',
    run: async () => {
      const { rows, total } = await repos.sample(options.max);
      const outcomes = await Promise.all(rows.map((row) => checkOne(stores, row, options.itemTimeoutMs)));
      const items = rows.map((row, i) => ({
        id: row.id,
        org_id: row.org_id,
        name: row.name,
        kind: row.kind,
        status: outcomes[i]!.ok ? 'ok' : 'down',
        ...(outcomes[i]!.ok ? {} : { reason: (outcomes[i] as { reason: string }).reason }),
      }));
      const down = items.filter((item) => item.status === 'down').length;
      const status = rows.length === 0 ? 'not_configured' : down === 0 ? 'ok' : down === rows.length ? 'down' : 'degraded';
      return { status, detail: { total, checked: rows.length, down, repositories: items } };
    },
  };
}

async function checkOne(stores: RepositoryStores, row: RepositoryRow, timeoutMs: number): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Outcome>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, reason: 'timeout' }), timeoutMs);
  });
  const checked = stores.check(row).then(
    (checks): Outcome => firstFailure(checks) ?? { ok: true },
    (): Outcome => ({ ok: false, reason: 'error' }),
  );
  try {
    return await Promise.race([checked, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function firstFailure(checks: readonly StoreCheck[]): Outcome | undefined {
  const failed = checks.find((check) => !check.ok);
  return failed ? { ok: false, reason: failed.reason ?? 'error' } : undefined;
}
