import type { z } from 'zod';
import type { Monitor, samplesPage } from '../../../shared/api/monitors.js';
import { problems } from '../../../shared/api/problems.js';
import { isUuid } from '../../../shared/ids.js';
import { monitorNotFound } from './monitor-problems.js';
import { monitorView, sampleView } from './monitor-view.js';
import type { MonitorsRepo, SampleWindow } from './monitors-repo.js';

type SamplesPage = z.infer<typeof samplesPage>;

/** What users read of a run's monitors: tenancy as for the run (another organization's run is 404). */
export class MonitorReadsService {
  constructor(private readonly repo: MonitorsRepo) {}

  /** Whether the live run is the organization's. */
  async runVisible(orgId: string, runId: string): Promise<boolean> {
    return isUuid(runId) && (await this.repo.runInOrg(orgId, runId));
  }

  async list(orgId: string, runId: string): Promise<{ items: Monitor[] }> {
    await this.visibleRun(orgId, runId);
    return { items: (await this.repo.listOfRun(runId)).map(monitorView) };
  }

  async get(orgId: string, runId: string, monitorId: string): Promise<Monitor> {
    await this.visibleRun(orgId, runId);
    const row = isUuid(monitorId) ? await this.repo.ofRun(runId, monitorId) : undefined;
    if (!row) throw monitorNotFound();
    return monitorView(row);
  }

  /** The monitor's samples in the window by seq; `next_after` says where the next page starts, null when none follows. */
  async samples(orgId: string, runId: string, monitorId: string, window: SampleWindow): Promise<SamplesPage> {
    const monitor = await this.get(orgId, runId, monitorId);
    const rows = await this.repo.samples(monitor.id, window);
    const items = rows.slice(0, window.limit).map(sampleView);
    return { items, next_after: rows.length > window.limit ? items.at(-1)!.seq : null };
  }

  private async visibleRun(orgId: string, runId: string): Promise<void> {
    if (!(await this.runVisible(orgId, runId))) throw problems.resourceNotFound('Run');
  }
}
