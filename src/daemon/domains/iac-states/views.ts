import type { IacState, IacStateVersion } from '../../../shared/api/iac-states.js';
import type { IacStateSummaryRow, IacVersionRow } from './iac-states-repo.js';

const iso = (value: Date | string) => new Date(value).toISOString();
const num = (value: string | number | null) => (value === null ? null : Number(value));

export function stateView(row: IacStateSummaryRow): IacState {
  const info = row.lock_json;
  return {
    name: row.name,
    org_id: row.org_id,
    latest_version: row.latest_version,
    serial: num(row.serial),
    lineage: row.lineage,
    size: row.size,
    sha256: row.sha256,
    lock:
      row.lock_id === null
        ? null
        : {
            id: row.lock_id,
            operation: typeof info?.Operation === 'string' ? info.Operation : null,
            who: typeof info?.Who === 'string' ? info.Who : null,
            info: typeof info?.Info === 'string' ? info.Info : null,
            created: typeof info?.Created === 'string' ? info.Created : null,
            locked_at: iso(row.locked_at!),
            locked_by: row.locked_by,
            run_id: row.lock_run_id,
            step_id: row.lock_step_id,
          },
    hold: row.hold_run_id === null ? null : { run_id: row.hold_run_id, step_id: row.hold_step_id, held_at: iso(row.held_at!) },
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export function versionView(row: IacVersionRow): IacStateVersion {
  return {
    version: row.version,
    serial: num(row.serial),
    lineage: row.lineage,
    size: row.size,
    sha256: row.sha256,
    source: row.source,
    rolled_back_from: row.rolled_back_from,
    created_by: row.created_by,
    run_id: row.run_id,
    step_id: row.step_id,
    created_at: iso(row.created_at),
  };
}
