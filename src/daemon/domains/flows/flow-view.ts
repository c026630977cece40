import type { FlowSummary, FlowVersionSummary } from '../../../shared/api/flows.js';
import type { DefinitionIssue } from '../../../shared/flows/definition-schema.js';
import type { FlowDefinition } from '../../../shared/flows/definition.js';
import { validateDefinition } from '../../../shared/flows/definition-schema.js';
import type { FlowRow, FlowSummaryRow, FlowVersionRow, FlowVersionSummaryRow } from './flows-repo.js';

/** A flow as lists carry it (the wire's `flowSummary`). */
export type FlowSummaryView = FlowSummary;

export interface Validation {
  readonly valid: boolean;
  readonly issues: DefinitionIssue[];
}

export interface FlowView extends FlowSummaryView {
  readonly draft: FlowDefinition;
  /** Whether the draft could be committed as it is, and why not. */
  readonly validation: Validation;
}

/** A committed version without its definition (the wire's `flowVersionSummary`). */
export type FlowVersionSummaryView = FlowVersionSummary;

export interface FlowVersionView extends FlowVersionSummaryView {
  readonly flow_id: string;
  readonly definition: FlowDefinition;
}

const iso = (value: Date | string) => new Date(value).toISOString();

export function validation(definition: unknown): Validation {
  const issues = validateDefinition(definition);
  return { valid: issues.length === 0, issues };
}

export function flowSummaryView(row: FlowSummaryRow, activeOrgId: string): FlowSummaryView {
  return {
    id: row.id,
    org_id: row.org_id,
    read_only: row.org_id !== activeOrgId,
    name: row.name,
    description: row.description,
    latest_version: row.latest_version,
    draft_dirty: row.draft_dirty,
    is_pinned: row.is_pinned,
    manual_runs_enabled: row.manual_runs_enabled,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    created_by: row.created_by,
    updated_by: row.updated_by,
    deleted_at: row.deleted_at ? iso(row.deleted_at) : null,
    deleted_by: row.deleted_by,
  };
}

export function flowView(row: FlowRow, activeOrgId: string): FlowView {
  return { ...flowSummaryView(row, activeOrgId), draft: row.draft_json, validation: validation(row.draft_json) };
}

export function versionSummaryView(row: FlowVersionSummaryRow): FlowVersionSummaryView {
  return { version: row.version, message: row.message, committed_by: row.committed_by, committed_at: iso(row.committed_at) };
}

export function versionView(row: FlowVersionRow): FlowVersionView {
  return { flow_id: row.flow_id, ...versionSummaryView(row), definition: row.definition_json };
}
