import { positiveNumber } from '../runs/inputs.js';
import { flag } from '../shared.js';

/** A side of a flow's history as the API names it: a committed version, or the draft. */
export type Revision = number | 'draft';

/** A flag naming a revision (`draft`, or a whole number from 1); undefined when absent, exit 2 otherwise. */
export function revisionFlag(raw: Record<string, unknown>, key: string, name: string): Revision | undefined {
  return flag.string(raw, key) === 'draft' ? 'draft' : positiveNumber(raw, key, name);
}
