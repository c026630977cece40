/**
 * What can go wrong in a command, as kinds; `EXIT_CODES` is the one table from kind to exit status.
 * Commands throw `CliError` (or `ApiError` for an answer of the daemon) and never call process.exit.
 */
export const EXIT_CODES = {
  ok: 0,
  error: 1,
  usage: 2,
  not_found: 3,
  auth_required: 4,
  forbidden: 5,
  server_error: 6,
  /** A run followed to its end (`svc runs start --wait`, `svc runs watch`) ended failed. */
  run_failed: 7,
  /** A run followed to its end ended cancelled. */
  run_cancelled: 8,
  /** An approval with nothing left for this caller to decide: no longer pending, or already decided by them (409). */
  approval_closed: 9,
  interrupted: 130,
} as const;

export type ErrorKind = Exclude<keyof typeof EXIT_CODES, 'ok'>;

export interface CliErrorDetails {
  /** A command to run next, printed on its own line (e.g. the exact `svc login …`). */
  readonly hint?: string;
  /** The daemon's problem code, when the error came from it. */
  readonly code?: string;
  readonly status?: number;
  readonly requestId?: string;
  /** The rule a 422 names (`override_rule_violation`, `last_org_admin`, …). */
  readonly rule?: string;
  readonly cause?: unknown;
}

export class CliError extends Error {
  override readonly name: string = 'CliError';
  readonly hint: string | undefined;
  readonly code: string | undefined;
  readonly status: number | undefined;
  readonly requestId: string | undefined;
  readonly rule: string | undefined;

  constructor(
    readonly kind: ErrorKind,
    message: string,
    details: CliErrorDetails = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.hint = details.hint;
    this.code = details.code;
    this.status = details.status;
    this.requestId = details.requestId;
    this.rule = details.rule;
  }
}

/** A problem+json answer of the daemon (or any non-2xx answer), with its wire code and request id. */
export class ApiError extends CliError {
  override readonly name = 'ApiError';
  constructor(message: string, details: CliErrorDetails & { readonly status: number; readonly code: string }) {
    super(KIND_OF_CODE[details.code] ?? kindOfStatus(details.status), message, details);
  }
}

/** Problem codes a script must tell apart from the rest of their status, whichever command met them. */
const KIND_OF_CODE: Readonly<Record<string, ErrorKind>> = {
  approval_not_pending: 'approval_closed',
  already_decided: 'approval_closed',
};

/** The error kind an HTTP status stands for. */
export function kindOfStatus(status: number): ErrorKind {
  if (status === 401) return 'auth_required';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not_found';
  if (status >= 500) return 'server_error';
  return 'error';
}

export const usageError = (message: string, hint?: string) => new CliError('usage', message, hint === undefined ? {} : { hint });

export function exitCodeOf(err: unknown): number {
  return err instanceof CliError ? EXIT_CODES[err.kind] : EXIT_CODES.error;
}
