import type { Variable } from '../../../shared/api/variables.js';
import { iso } from '../inventory/access.js';
import type { VariableRow } from './variables-repo.js';

/** A variable on the wire; `shared` when it is the shared organization's, seen from another one. */
export function variableView(row: VariableRow, activeOrgId: string): Variable {
  return {
    id: row.id,
    org_id: row.org_id,
    name: row.name,
    description: row.description,
    type: row.type,
    value: row.value_json,
    shared: row.org_id !== activeOrgId,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
    created_by: row.created_by,
    updated_by: row.updated_by,
    deleted_at: iso(row.deleted_at),
    deleted_by: row.deleted_by,
  };
}

/** What an audit entry keeps of a variable: the change history is these, entry by entry. */
export function variableSnapshot(row: VariableRow): Record<string, unknown> {
  return { name: row.name, type: row.type, value: row.value_json, description: row.description };
}
