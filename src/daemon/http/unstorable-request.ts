import type { Problem } from '../../shared/api/problem.js';
import { problems } from '../../shared/api/problems.js';
import { findUnstorableText, UNSTORABLE_TEXT_MESSAGES } from '../../shared/json/unstorable-text.js';
import type { UnstorableValue } from '../db/database-errors.js';
import type { AppContext } from './types.js';

/**
 * The answer to a statement the database refused for a value no schema caught (`unstorableValue`): 422
 * `validation_failed`, as a field's own check answers. NUL is found in the body or the query and named
 * (empty when it came some other way, a path segment say); another value (too long, out of range,
 * malformed) is not, since the database does not say which parameter it was.
 */
export function unstorableValueProblem(ctx: AppContext, kind: UnstorableValue): Problem {
  if (kind === 'value')
    return problems.validation([{ path: '', message: 'a value the database cannot take: too long, out of range or malformed' }]);
  const found = findUnstorableText(ctx.state.body, ['nul']) ?? findUnstorableText({ ...ctx.query }, ['nul']);
  return problems.validation([{ path: found?.path ?? '', message: UNSTORABLE_TEXT_MESSAGES.nul }]);
}
