import { problems } from '../../shared/api/problems.js';
import { findUnstorableTextInJson, UNSTORABLE_TEXT_MESSAGES } from '../../shared/json/unstorable-text.js';
import type { AppContext } from './types.js';

/** NUL cannot be stored (text and jsonb refuse it): 422 naming where, before the body's schema (a route's `preValidation`). */
export function refuseNul(ctx: AppContext): void {
  const raw = ctx.state.rawBody;
  if (!raw) return;
  const found = findUnstorableTextInJson(raw.toString('utf8'), ctx.state.body, ['nul']);
  if (found) throw problems.validation([{ path: found.path, message: UNSTORABLE_TEXT_MESSAGES.nul }]);
}
