import type { AuditContext } from '../../src/daemon/audit/audit-context.js';
import type { ConfigExchangeEngine, Org } from '../../src/daemon/domains/config-exchange/engine/index.js';
import { startTestDaemon, type TestDaemon } from './daemon.js';
import { seedOrg } from './seed.js';

/** An installation for engine-level family tests: a daemon on its own database with organization `acme`. */
export interface Installation {
  readonly daemon: TestDaemon;
  readonly engine: ConfigExchangeEngine;
  readonly acme: Org;
}

export async function installation(): Promise<Installation> {
  const daemon = await startTestDaemon();
  const id = await seedOrg(daemon.services.db.knex, 'acme', 'Acme');
  return { daemon, engine: daemon.configExchange.engine, acme: { id, slug: 'acme' } };
}

/** The operator an apply is made for, its correlation id the plan's. */
export function operator(correlationId: string) {
  const audit: AuditContext = {
    requestId: correlationId,
    route: 'test',
    clientIp: '127.0.0.1',
    userAgent: undefined,
    subject: 'sub-root',
    username: 'root',
  };
  return { correlationId, actor: { sub: 'sub-root', username: 'root' }, audit };
}
