import type { Knex } from 'knex';
import type { OutcomeCounts, SyncCounts } from '../../../shared/api/inventory-providers.js';
import { Problem } from '../../../shared/api/problem.js';
import { DEVICES, SITES, deviceItem, objectItem, objectsTable, siteItem } from './import-items.js';
import type { ImportItem, ImportRepo, ImportScope } from './import-repo.js';
import type { ImportedRepo } from './imported-repo.js';
import type { InventorySource, ListFrom, Page } from './plugins/plugin.js';
import { ProviderRequestError } from './provider-http.js';
import { addCounts, emptyCounts } from './sync-counts.js';
import type { SyncCursor, SyncError, SyncRunsRepo } from './sync-runs-repo.js';

/** What one sync is: its run, the pass it belongs to, where it starts, and what it reads. */
export interface SyncJob {
  readonly runId: string;
  readonly scope: ImportScope;
  readonly mode: 'full' | 'incremental';
  /** Incremental: the watermark to read changes from. */
  readonly since: Date | null;
  /** Resuming: where the failed sync stopped. */
  readonly cursor: SyncCursor | null;
  /** Who the stale rows are marked deleted by. */
  readonly staleBy: string;
}

export interface SyncResult {
  readonly counts: SyncCounts;
  readonly error: SyncError | null;
  /** The newest `last_updated` the sync saw (the next watermark, on success). */
  readonly newest: Date | null;
  /**
   * A failure that is not the provider's (a page the database refused): recorded as the sync's error
   * like a provider's, then answered as it is.
   */
  readonly cause?: unknown;
}

/**
 * Runs a sync's phases in order (sites, devices, each object type, then stale marking on a full pass),
 * a page at a time: a page is fetched outside any transaction, then written with the run's progress in
 * one, so a failure leaves every earlier page applied and the cursor at the page that failed. Memory
 * holds one page, whatever the provider's size.
 */
export class SyncEngine {
  constructor(
    private readonly knex: Knex,
    private readonly imports: ImportRepo,
    private readonly imported: ImportedRepo,
    private readonly runs: SyncRunsRepo,
  ) {}

  async run(source: InventorySource, job: SyncJob): Promise<SyncResult> {
    const counts = emptyCounts();
    const phases = ['sites', 'devices', ...source.objectTypes.map((type) => `objects:${type}`), ...(job.mode === 'full' ? ['stale'] : [])];
    const first = job.cursor ? Math.max(0, phases.indexOf(job.cursor.phase)) : 0;
    let newest = toDate(job.cursor?.newest);
    let phase = phases[first]!;
    let page: string | null = job.cursor?.page ?? null;
    try {
      for (let index = first; index < phases.length; index++) {
        phase = phases[index]!;
        const after = phases[index + 1] ?? 'done';
        if (phase === 'stale') {
          await this.knex.transaction(async (trx) => {
            const stale = await this.imported.markStale(trx, job.scope.orgId, job.scope.providerId, job.scope.seenAt, job.staleBy);
            for (const kind of ['sites', 'devices', 'objects'] as const) addCounts(counts, kind, { stale: stale[kind] });
            await this.runs.progress(trx, job.runId, { phase: after, page: null }, counts);
          });
          continue;
        }
        const since = job.mode === 'incremental' ? job.since : null;
        // The next page is fetched while this one is written: the provider and the database work at once,
        // and memory holds two pages at most.
        let pending: Promise<Page<unknown>> | null = this.fetch(source, phase, { cursor: page, since });
        while (pending) {
          const fetched: Page<unknown> = await pending;
          pending = fetched.next ? this.fetch(source, phase, { cursor: fetched.next, since }) : null;
          // A prefetch failing while this page is written is reported when it is awaited, not as unhandled.
          pending?.catch(() => undefined);
          for (const item of fetched.items) {
            const at = (item as { last_updated: Date | null }).last_updated;
            if (at && (!newest || at > newest)) newest = at;
          }
          const next: SyncCursor = fetched.next
            ? { phase, page: fetched.next, newest: newest?.toISOString() ?? null }
            : { phase: after, page: null, newest: newest?.toISOString() ?? null };
          await this.knex.transaction(async (trx) => {
            const outcome = await this.apply(trx, phase, job.scope, fetched);
            addCounts(counts, phase.startsWith('objects:') ? 'objects' : (phase as 'sites' | 'devices'), outcome);
            await this.runs.progress(trx, job.runId, next, counts);
          });
          page = fetched.next;
        }
        page = null;
      }
      return { counts, error: null, newest };
    } catch (error) {
      if (error instanceof ProviderRequestError) {
        return { counts, error: { code: error.reason, message: error.message, phase, page: error.page ?? page }, newest };
      }
      const code = error instanceof Problem ? error.code : 'internal_error';
      const message = error instanceof Problem ? error.message : 'the page could not be written';
      return { counts, error: { code, message, phase, page }, newest, cause: error };
    }
  }

  private fetch(source: InventorySource, phase: string, from: ListFrom): Promise<Page<unknown>> {
    if (phase === 'sites') return source.sites(from);
    if (phase === 'devices') return source.devices(from);
    return source.objects(phase.slice('objects:'.length), from);
  }

  private async apply(trx: Knex.Transaction, phase: string, scope: ImportScope, page: Page<unknown>): Promise<Partial<OutcomeCounts>> {
    let items: (ImportItem | undefined)[];
    let outcome: Partial<OutcomeCounts>;
    if (phase === 'sites') {
      items = (page as Page<Parameters<typeof siteItem>[0]>).items.map(siteItem);
      outcome = await this.imports.apply(trx, SITES, scope, kept(items));
    } else if (phase === 'devices') {
      const devices = (page as Page<Parameters<typeof deviceItem>[0]>).items;
      const siteIds = await this.imports.siteIds(
        trx,
        scope,
        devices.map((device) => device.site_external_id).filter((id): id is string => id !== null),
      );
      items = devices.map((device) => deviceItem(device, siteIds));
      outcome = await this.imports.apply(trx, DEVICES, scope, kept(items));
    } else {
      items = (page as Page<Parameters<typeof objectItem>[0]>).items.map(objectItem);
      outcome = await this.imports.apply(trx, objectsTable(phase.slice('objects:'.length)), scope, kept(items));
    }
    const unreadable = page.malformed + items.filter((item) => item === undefined).length;
    return { ...outcome, skipped: (outcome.skipped ?? 0) + unreadable };
  }
}

const kept = (items: readonly (ImportItem | undefined)[]) => items.filter((item): item is ImportItem => item !== undefined);

function toDate(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? null : at;
}
