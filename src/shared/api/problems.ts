import { problem } from './problem.js';

/** The part of a request a validation issue is about. */
export type RequestPart = 'path' | 'query' | 'body';

/** The problems answered by more than one room: the request path's own refusals and the common resource outcomes. */
export const problems = {
  notFound: () => problem('not_found', 'No route matches this path.'),
  methodNotAllowed: (allow: readonly string[]) =>
    problem('method_not_allowed', 'This path does not accept this method.', { allow }, { Allow: allow.join(', ') }),
  invalidPath: () => problem('invalid_path', 'The path contains a malformed percent-encoding.'),
  payloadTooLarge: (limit: number) => problem('payload_too_large', `The request body exceeds ${limit} bytes.`, { limit }),
  // The parser's own message quotes part of the body, which may hold a secret: never echoed back.
  malformedJson: (errors?: readonly { path: string; message: string }[]) =>
    errors
      ? problem('malformed_json', 'The request body holds a string that is not Unicode text.', { errors })
      : problem('malformed_json', 'The request body is not valid JSON.'),
  unsupportedMediaType: () => problem('unsupported_media_type', 'Send the request body as application/json.'),
  ambiguousCredentials: (header: string) =>
    problem('ambiguous_credentials', `The ${header} header is sent more than once; send one credential.`, { header }),
  forbidden: (detail: string, extensions: Record<string, unknown> = {}) => problem('forbidden', detail, extensions),
  /** `part` names, in the detail, what an issue with an empty path is about (the whole body, query or path). */
  validation: (errors: readonly { path: string; message: string }[], part: RequestPart = 'body') =>
    problem('validation_failed', `The request is not valid: ${errors.map((e) => `${e.path || `(${part})`}: ${e.message}`).join('; ')}`, {
      errors,
    }),
  resourceNotFound: (what: string) => problem('resource_not_found', `${what} not found.`),
  conflict: (detail: string) => problem('conflict', detail),
  notImplemented: (action: string) => problem('not_implemented', `The ${action} action is not built yet.`, { action }),
  // A write's commit may have been stored while its acknowledgement was lost: the detail says so where senders read.
  databaseUnavailable: () =>
    problem(
      'database_unavailable',
      'The database does not answer; retry after Retry-After seconds. A write may have been stored even so (its acknowledgement lost): retry a webhook trigger with the same X-Idempotency-Key, which answers 409 duplicate_delivery if it was.',
      {},
      { 'Retry-After': '5' },
    ),
  shuttingDown: () => problem('shutting_down', 'This instance is shutting down.', {}, { 'Retry-After': '1' }),
  internal: () => problem('internal_error', 'An unexpected error occurred.'),
};
