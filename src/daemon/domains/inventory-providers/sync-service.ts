import type { ConnectionReport, Discovery, SyncHistory, SyncRun } from '../../../shared/api/inventory-providers.js';
import { problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import type { Credentials } from './credentials.js';
import type { ImportedRepo } from './imported-repo.js';
import { pluginOf } from './provider-config.js';
import { ProviderRequestError, type ProviderHttp } from './provider-http.js';
import { syncRunView } from './provider-view.js';
import type { ProviderRow, ProvidersRepo } from './providers-repo.js';
import type { OrgRef, ProvidersService } from './providers-service.js';
import type { SyncEngine } from './sync-engine.js';
import { DocumentFileError, type StaticDocuments } from './static-documents.js';
import type { SyncRunRow, SyncRunsRepo } from './sync-runs-repo.js';
import type { InventorySource } from './plugins/plugin.js';

export interface SyncOptions {
  readonly mode?: 'full' | 'incremental' | undefined;
  readonly resume?: boolean | undefined;
}

/** Makes the HTTP client of one provider (its own time limit, the daemon's retry policy). */
export type HttpFor = (timeoutMs: number | undefined) => ProviderHttp;

/**
 * What reaches a provider (`inventory_provider:test|sync|manage|purge`): test-connection, discover, sync
 * with its history, purge of what was imported. One sync per provider at a time, across instances: the
 * running row is the lock (a second answers 409 `inventory_sync_running`), and a sync whose instance
 * died (no page written for the lease) is failed by the next one, which then runs.
 */
export class SyncService {
  constructor(
    private readonly providers: ProvidersService,
    private readonly repo: ProvidersRepo,
    private readonly runs: SyncRunsRepo,
    private readonly engine: SyncEngine,
    private readonly imported: ImportedRepo,
    private readonly credentials: Credentials,
    private readonly documents: StaticDocuments,
    private readonly httpFor: HttpFor,
    private readonly audit: AuditWriter,
    private readonly leaseMs: number,
  ) {}

  async test(org: OrgRef, providerId: string, context: AuditContext | undefined): Promise<ConnectionReport> {
    const row = await this.providers.live(org, providerId);
    let report: ConnectionReport;
    try {
      const details = await (await this.open(row, true)).test();
      report = { ok: true, provider_id: row.provider_id, details, error: null };
    } catch (error) {
      if (error instanceof DocumentFileError) {
        report = { ok: false, provider_id: row.provider_id, details: {}, error: { code: 'invalid_document', message: error.message } };
      } else {
        if (!(error instanceof ProviderRequestError)) throw error;
        report = { ok: false, provider_id: row.provider_id, details: {}, error: { code: error.reason, message: error.message } };
      }
    }
    await this.audit.record(context, {
      eventType: 'inventory_provider.tested',
      action: 'inventory_provider:test',
      resourceType: 'inventory_provider',
      resourceId: row.id,
      outcome: report.ok ? 'success' : 'failure',
      orgId: row.org_id,
      details: { provider_id: row.provider_id, error: report.error },
    });
    return report;
  }

  async discover(org: OrgRef, providerId: string): Promise<Discovery> {
    const row = await this.usable(org, providerId);
    try {
      return { provider_id: row.provider_id, ...(await (await this.open(row)).discover()) };
    } catch (error) {
      if (error instanceof ProviderRequestError) throw requestFailed(error);
      throw error;
    }
  }

  async history(
    org: OrgRef,
    providerId: string,
    filter: { status?: string | undefined; limit: number; offset: number },
  ): Promise<SyncHistory> {
    const row = await this.providers.live(org, providerId);
    const { rows, total } = await this.runs.history(row.id, filter);
    return { items: rows.map((run) => syncRunView(run, row.provider_id)), total, limit: filter.limit, offset: filter.offset };
  }

  async sync(org: OrgRef, providerId: string, options: SyncOptions, context: AuditContext | undefined): Promise<SyncRun> {
    const row = await this.usable(org, providerId);
    const plugin = pluginOf(row.type);
    const mode = options.mode ?? 'full';
    if (mode === 'incremental' && !plugin.incremental) {
      throw problems.validation([{ path: 'mode', message: `a ${row.type} provider cannot sync incrementally` }]);
    }
    const source = await this.open(row);
    const run = await this.start(row, mode, options.resume !== false, context?.subject ?? null);
    const by = `inventory-sync:${row.provider_id}`;
    const result = await this.engine.run(source, {
      runId: run.id,
      scope: { orgId: row.org_id, providerId: row.provider_id, seenAt: run.pass_started_at, by },
      mode,
      since: mode === 'incremental' ? row.sync_watermark : null,
      cursor: run.cursor_json,
      staleBy: by,
    });
    const finished = await this.repo.transaction(async (trx) => {
      const status = result.error ? 'failed' : 'succeeded';
      const done = await this.runs.finish(trx, run.id, status, result.counts, result.error);
      const watermark =
        !result.error && result.newest && (!row.sync_watermark || result.newest > row.sync_watermark) ? result.newest : undefined;
      await this.repo.update(trx, row.id, {
        last_sync_id: run.id,
        last_sync_status: status,
        last_sync_at: trx.fn.now(),
        ...(watermark ? { sync_watermark: watermark } : {}),
      });
      await this.audit.record(
        context,
        {
          eventType: 'inventory_provider.synced',
          action: 'inventory_provider:sync',
          resourceType: 'inventory_provider',
          resourceId: row.id,
          outcome: result.error ? 'failure' : 'success',
          orgId: row.org_id,
          details: {
            provider_id: row.provider_id,
            sync_id: run.id,
            mode,
            resumed_from: run.resumed_from,
            counts: result.counts,
            error: result.error,
          },
        },
        trx,
      );
      return done;
    });
    if (result.cause !== undefined) throw result.cause;
    if (result.error) {
      throw problem('provider_request_failed', `The sync failed: ${result.error.message}.`, {
        reason: result.error.code,
        sync_id: run.id,
        phase: result.error.phase,
      });
    }
    return syncRunView(finished, row.provider_id);
  }

  /** `purge-inventory`: every site, device and object the provider imported, removed for good; the provider stays. */
  async purgeInventory(org: OrgRef, providerId: string, context: AuditContext | undefined): Promise<{ removed: Record<string, number> }> {
    const row = await this.providers.live(org, providerId);
    const running = await this.runs.running(row.id);
    if (running) throw problem('inventory_sync_running', 'A sync of this provider is running.', { sync_id: running.id });
    return this.repo.transaction(async (trx) => {
      const removed = await this.imported.purge(trx, row.org_id, row.provider_id);
      await this.repo.update(trx, row.id, { sync_watermark: null, updated_by: context?.subject ?? null });
      await this.audit.record(
        context,
        {
          eventType: 'inventory_provider.inventory_purged',
          action: 'inventory_provider:purge',
          resourceType: 'inventory_provider',
          resourceId: row.id,
          outcome: 'success',
          orgId: row.org_id,
          details: { provider_id: row.provider_id, removed },
        },
        trx,
      );
      return { removed };
    });
  }

  /** Opens the running sync row, resuming a failed one of the same mode; 409 while another runs. */
  private async start(row: ProviderRow, mode: 'full' | 'incremental', resume: boolean, by: string | null): Promise<SyncRunRow> {
    const last = resume ? await this.runs.latestFinished(row.id) : undefined;
    const resumes = last?.status === 'failed' && last.cursor_json !== null && last.mode === mode ? last : undefined;
    const fresh = {
      provider_row_id: row.id,
      org_id: row.org_id,
      mode,
      resumed_from: resumes?.id ?? null,
      pass_started_at: resumes?.pass_started_at ?? new Date(),
      cursor_json: resumes?.cursor_json ?? null,
      triggered_by: by,
    };
    for (let attempt = 0; attempt < 2; attempt++) {
      const opened = await this.runs.open(fresh);
      if (opened) return opened;
      const running = await this.runs.running(row.id);
      if (running && !(await this.runs.abandon(running.id, new Date(Date.now() - this.leaseMs)))) {
        throw problem('inventory_sync_running', 'A sync of this provider is already running.', { sync_id: running.id });
      }
    }
    throw problem('inventory_sync_running', 'A sync of this provider is already running.', {});
  }

  private async usable(org: OrgRef, providerId: string): Promise<ProviderRow> {
    const row = await this.providers.live(org, providerId);
    if (!row.enabled) throw problem('provider_disabled', 'The provider is disabled.', {});
    return row;
  }

  /** test-connection reports a document file that cannot be used; discover and sync refuse it (422). */
  private async open(row: ProviderRow, report = false): Promise<InventorySource> {
    const credential = await this.credentials.resolve(row.org_id, row.credential_ref);
    const timeout = typeof row.config_json.timeout_ms === 'number' ? row.config_json.timeout_ms : undefined;
    let config: Record<string, unknown>;
    try {
      config = await this.documents.resolve(row.org_id, row.config_json);
    } catch (error) {
      if (error instanceof DocumentFileError && !report) throw error.toProblem();
      throw error;
    }
    return pluginOf(row.type).open(config, credential, this.httpFor(timeout));
  }
}

function requestFailed(error: ProviderRequestError) {
  return problem('provider_request_failed', `The provider could not be asked: ${error.message}.`, { reason: error.reason });
}
