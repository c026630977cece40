import type { Monitor, MonitorSample } from '../../../shared/api/monitors.js';
import { iso } from '../runs/run-view.js';

type Json = Record<string, unknown>;
const parsed = <T>(value: T | string): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value);

export interface MonitorRow {
  readonly id: string;
  readonly run_id: string;
  readonly org_id: string;
  readonly monitor_key: string;
  readonly name: string;
  readonly step_id: string | null;
  readonly kind: string;
  readonly target: string | null;
  readonly unit: string | null;
  readonly status: Monitor['status'];
  readonly summary: Json | string;
  readonly sample_count: string | number;
  readonly last_seq: string | number | null;
  readonly last_sample: MonitorSample | string | null;
  readonly created_at: Date | string;
  readonly updated_at: Date | string;
  readonly closed_at: Date | string | null;
}

export const MONITOR_COLUMNS = [
  'id',
  'run_id',
  'org_id',
  'monitor_key',
  'name',
  'step_id',
  'kind',
  'target',
  'unit',
  'status',
  'summary',
  'sample_count',
  'last_seq',
  'last_sample',
  'created_at',
  'updated_at',
  'closed_at',
] as const;

export interface SampleRow {
  readonly seq: string | number;
  readonly ts: Date | string;
  readonly value: number | string | null;
  readonly status: string | null;
  readonly data: Json | string | null;
}

export function sampleView(row: SampleRow): MonitorSample {
  return {
    seq: Number(row.seq),
    ts: iso(row.ts),
    value: row.value === null ? null : Number(row.value),
    status: row.status,
    data: row.data === null ? {} : parsed(row.data),
  };
}

export function monitorView(row: MonitorRow): Monitor {
  return {
    id: row.id,
    run_id: row.run_id,
    org_id: row.org_id,
    monitor_key: row.monitor_key,
    name: row.name,
    step_id: row.step_id,
    kind: row.kind,
    target: row.target,
    unit: row.unit,
    status: row.status,
    summary: parsed(row.summary),
    sample_count: Number(row.sample_count),
    last_seq: row.last_seq === null ? null : Number(row.last_seq),
    last_sample: row.last_sample === null ? null : parsed(row.last_sample),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    closed_at: iso(row.closed_at),
  };
}
