/** What one attempt to send a message came to. */
export interface AttemptResult {
  /** `transient`: worth trying again later; `permanent`: it will fail the same way. */
  readonly outcome: 'delivered' | 'transient' | 'permanent';
  /** The receiver's HTTP status or SMTP reply code, when it answered. */
  readonly statusCode: number | null;
  /** Why it failed: `http_status`, `smtp_reply`, `smtp_connection`, `secret_reference`, `secret_backend`, or the outbound guard's reason. */
  readonly reason: string | null;
  /** A short description for people (never a secret: no URL, no credential). */
  readonly detail: string | null;
}

export const delivered = (statusCode: number | null): AttemptResult => ({ outcome: 'delivered', statusCode, reason: null, detail: null });

/** HTTP: 2xx delivered; 408, 425, 429 and 5xx are worth a retry; any other answer (4xx, a 3xx not followed) is final. */
export function httpResult(status: number, bodyText: string): AttemptResult {
  if (status >= 200 && status < 300) return delivered(status);
  const transient = status >= 500 || status === 408 || status === 425 || status === 429;
  return {
    outcome: transient ? 'transient' : 'permanent',
    statusCode: status,
    reason: 'http_status',
    detail: bodyText.slice(0, 200) || null,
  };
}

/** SMTP: a 4xx reply is temporary (try later), a 5xx reply final. */
export function smtpResult(code: number, detail: string): AttemptResult {
  return { outcome: code >= 500 ? 'permanent' : 'transient', statusCode: code, reason: 'smtp_reply', detail: detail.slice(0, 200) };
}
