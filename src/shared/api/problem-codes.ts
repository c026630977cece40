/**
 * Every `code` a problem response can carry. Clients (the CLI among them) branch on these, never on
 * message text, so a code once published keeps its meaning.
 */
export const PROBLEM_CODES = {
  not_found: 'No route matches the request path.',
  method_not_allowed: 'The path exists but not with this method; `Allow` lists the methods it has.',
  invalid_path: 'The request path has a malformed percent-encoding.',
  payload_too_large: 'The request body exceeds the size limit.',
  malformed_json: 'The request body is not valid JSON.',
  unsupported_media_type: 'The request body is not JSON (`Content-Type: application/json`).',
  not_implemented: 'The route is in the catalogue but its domain is not built yet; `action` names it.',
  database_unavailable: 'The database does not answer.',
  shutting_down: 'The instance is shutting down and takes no new work.',
  internal_error: 'An unexpected error; the request id finds it in the logs.',
} as const;

export type ProblemCode = keyof typeof PROBLEM_CODES;

/** The RFC 9457 body every error response carries. */
export interface ProblemBody {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail?: string;
  readonly code: ProblemCode;
  readonly request_id?: string;
  readonly [extension: string]: unknown;
}

export function problemType(code: ProblemCode): string {
  return `urn:svc:problem:${code}`;
}
