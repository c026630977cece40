import type { z } from 'zod';
import type { Worker, workerList, workerListQuery } from '../../../shared/api/workers.js';
import type { WorkerRow, WorkersRepo } from './workers-repo.js';

type WorkerListQuery = z.output<typeof workerListQuery>;
type WorkerList = z.output<typeof workerList>;

function workerView(row: WorkerRow): Worker {
  return {
    id: row.id,
    hostname: row.hostname,
    version: row.version,
    labels: row.labels_json,
    handlers: row.handlers_json,
    capacity: row.capacity,
    running: row.running,
    draining: row.draining,
    status: row.online ? 'online' : 'offline',
    first_seen_at: new Date(row.first_seen_at).toISOString(),
    last_seen_at: new Date(row.last_seen_at).toISOString(),
  };
}

/** The worker registry as `GET /workers` shows it: online while heartbeats arrive within one lease. */
export class WorkersService {
  constructor(
    private readonly repo: WorkersRepo,
    private readonly leaseSeconds: number,
  ) {}

  async list(query: WorkerListQuery): Promise<WorkerList> {
    const online = query.status === undefined ? undefined : query.status === 'online';
    const { rows, total } = await this.repo.list({ online, limit: query.limit, offset: query.offset }, this.leaseSeconds);
    return { items: rows.map(workerView), total, limit: query.limit, offset: query.offset };
  }
}
