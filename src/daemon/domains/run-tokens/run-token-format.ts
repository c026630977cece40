import { randomSecret } from '../../auth/secrets.js';

/** Run tokens start with this, so they are recognisable (secret scanners, logs, the daemon itself). */
export const RUN_TOKEN_PREFIX = 'svc_run_';
const RUN_TOKEN_SHAPE = /^svc_run_[A-Za-z0-9_-]{43}$/;

/** 256 random bits behind the prefix. */
export function newRunToken(): string {
  return `${RUN_TOKEN_PREFIX}${randomSecret(32)}`;
}

/** Whether `token` could be a run token at all: anything else is refused without a query. */
export function isWellFormedRunToken(token: string): boolean {
  return RUN_TOKEN_SHAPE.test(token);
}
