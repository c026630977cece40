import { STATUS_CODES } from 'node:http';
import { problemCodeEntry, type ProblemCode } from './problem-codes.js';

/** The members every problem body has; an extension may not take their names. */
export const BASE_MEMBERS: ReadonlySet<string> = new Set(['type', 'title', 'status', 'detail', 'code', 'request_id']);

/**
 * A failure with a stable wire code. Services throw these; the daemon's error middleware alone turns them
 * into `application/problem+json`. `extensions` become extra members of the body (for example `action`).
 * Made with `problem(code, …)`, which takes the status from the code table; the constructor is for a
 * Problem whose status is not the table's (`withStatus`) and for tests.
 */
export class Problem extends Error {
  constructor(
    readonly status: number,
    readonly code: ProblemCode,
    detail?: string,
    readonly extensions: Readonly<Record<string, unknown>> = {},
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(detail ?? STATUS_CODES[status] ?? code);
    this.name = 'Problem';
    // RFC 9457: `status` is the HTTP status, `type` the problem's URI; an extension of one of these
    // names would replace it in the body, so a client reading `status` would find a run's status.
    const taken = Object.keys(extensions).find((name) => BASE_MEMBERS.has(name));
    if (taken !== undefined) throw new Error(`Problem ${code}: the extension "${taken}" would replace a base member`);
  }

  get title(): string {
    return STATUS_CODES[this.status] ?? 'Error';
  }

  /**
   * The same problem answered with the other status its code's table entry allows (`otherStatus`), the one
   * documented exception to a code having one status. Any other status is a programming fault.
   */
  withStatus(status: number): Problem {
    if (status === this.status) return this;
    if (problemCodeEntry(this.code).otherStatus?.status !== status) {
      throw new Error(`Problem code ${this.code} is never answered with status ${status}`);
    }
    return new Problem(status, this.code, this.message, this.extensions, this.headers);
  }
}

/** A Problem with the status the code table gives `code`. */
export function problem(
  code: ProblemCode,
  detail?: string,
  extensions?: Readonly<Record<string, unknown>>,
  headers?: Readonly<Record<string, string>>,
): Problem {
  return new Problem(problemCodeEntry(code).status, code, detail, extensions, headers);
}
