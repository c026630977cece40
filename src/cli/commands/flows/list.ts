import type { FlowSummary } from '../../../shared/api/flows.js';
import type { Column } from '../../runtime/table.js';
import { listVerb } from '../list-verb.js';

const COLUMNS: Column<FlowSummary>[] = [
  { header: 'ID', value: (f) => f.id },
  { header: 'NAME', value: (f) => f.name },
  { header: 'VERSION', value: (f) => f.latest_version || null },
  { header: 'DRAFT', value: (f) => (f.draft_dirty ? 'edited' : 'committed') },
  { header: 'SHARED', value: (f) => (f.read_only ? 'yes' : 'no') },
  { header: 'UPDATED', value: (f) => f.updated_at },
];

/** `svc flows list`: `GET /flows`. */
export const { define, invoke } = listVerb({
  path: '/flows',
  description: "The organization's flows and the shared organization's (read-only), by name.",
  q: 'only flows whose name or description contains this',
  columns: COLUMNS,
  empty: 'No flows.',
});
