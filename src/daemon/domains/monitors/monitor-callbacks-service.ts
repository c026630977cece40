import type { z } from 'zod';
import type { createMonitorBody, Monitor, patchMonitorBody } from '../../../shared/api/monitors.js';
import { isUuid } from '../../../shared/ids.js';
import { fence, type Holder, isHeldBy, runNotFound } from '../run-callbacks/fence.js';
import { monitorClosed, monitorNotFound, monitorRunLimit } from './monitor-problems.js';
import { monitorView } from './monitor-view.js';
import type { MonitorsRepo } from './monitors-repo.js';

type CreateMonitor = z.infer<typeof createMonitorBody>;
type PatchMonitor = z.infer<typeof patchMonitorBody>;

/**
 * The worker's monitor callbacks other than samples. Every write is fenced as the run callbacks are (the
 * run locked, held by the worker and attempt of the headers, else 409 `run_not_held`), in any status the
 * holder holds it in: a monitor lives as long as its run is held, however many steps it spans.
 */
export class MonitorCallbacksService {
  constructor(
    private readonly repo: MonitorsRepo,
    /** SERVICE_MONITOR_MAX_PER_RUN. */
    private readonly maxPerRun: number,
  ) {}

  /**
   * Opens the run's monitor of this key, or answers the one it has (`created` false): a retried create is
   * harmless, even at the cap. Creates of one run queue on its row lock, so the count cannot be raced past.
   */
  create(holder: Holder, body: CreateMonitor): Promise<{ created: boolean; monitor: Monitor }> {
    return this.repo.transaction(async (trx) => {
      const run = fence(await this.repo.lockRun(trx, body.run_id), (r) => isHeldBy(r, holder), holder);
      const existing = await this.repo.byKey(trx, body.run_id, body.monitor_key);
      if (existing) return { created: false, monitor: monitorView(existing) };
      if ((await this.repo.countOfRun(trx, body.run_id)) >= this.maxPerRun) throw monitorRunLimit(body.run_id, this.maxPerRun);
      const created = await this.repo.insert(trx, {
        run_id: body.run_id,
        org_id: run.org_id,
        monitor_key: body.monitor_key,
        name: body.name ?? body.monitor_key,
        step_id: body.step_id ?? null,
        kind: body.kind,
        target: body.target ?? null,
        unit: body.unit ?? null,
      });
      return { created: true, monitor: monitorView(created) };
    });
  }

  async get(id: string): Promise<Monitor> {
    const row = isUuid(id) ? await this.repo.get(id) : undefined;
    if (!row) throw monitorNotFound();
    return monitorView(row);
  }

  /** The worker's changes to an open monitor (its summary, names, closing it); 409 `monitor_closed` once closed. */
  async patch(id: string, holder: Holder, changes: PatchMonitor): Promise<Monitor> {
    const found = isUuid(id) ? await this.repo.get(id) : undefined;
    if (!found) throw monitorNotFound();
    return this.repo.transaction(async (trx) => {
      fence(await this.repo.lockRun(trx, found.run_id), (r) => isHeldBy(r, holder), holder);
      const [locked] = await this.repo.lockMany(trx, [id]);
      if (locked!.status === 'closed') throw monitorClosed(id);
      return monitorView(await this.repo.update(trx, id, changes));
    });
  }

  /** Closes every open monitor of the run; answers those it closed. */
  finalize(runId: string, holder: Holder): Promise<{ closed: string[] }> {
    if (!isUuid(runId)) throw runNotFound();
    return this.repo.transaction(async (trx) => {
      fence(await this.repo.lockRun(trx, runId), (r) => isHeldBy(r, holder), holder);
      return { closed: await this.repo.closeOpen(trx, runId) };
    });
  }
}
