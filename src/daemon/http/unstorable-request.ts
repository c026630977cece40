import type { Problem } from '../../shared/api/problem.js';
import { problems } from '../../shared/api/problems.js';
import { findUnstorableText, UNSTORABLE_TEXT_MESSAGES } from '../../shared/json/unstorable-text.js';
import type { AppContext } from './types.js';

/**
 * The answer to a statement the database refused for NUL that no schema caught (`isUnstorableText`): 422
 * `validation_failed`, as a field's own check answers, at the body's or the query's member holding it
 * when one does (empty when it came some other way, a path segment say).
 */
export function unstorableTextProblem(ctx: AppContext): Problem {
  const found = findUnstorableText(ctx.state.body, ['nul']) ?? findUnstorableText({ ...ctx.query }, ['nul']);
  return problems.validation([{ path: found?.path ?? '', message: UNSTORABLE_TEXT_MESSAGES.nul }]);
}
