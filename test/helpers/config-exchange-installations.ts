import type { AuditContext } from '../../src/daemon/audit/audit-context.js';
import type { ConfigExchangeEngine, Org } from '../../src/daemon/domains/config-exchange/engine/index.js';
import { startTestDaemon, type TestDaemon } from './daemon.js';
import { seedOrg } from './seed.js';

/** One installation for engine-level family tests: a daemon on its own database, its engine, organization `acme`. */
export interface Installation {
  readonly daemon: TestDaemon;
  readonly engine: ConfigExchangeEngine;
  readonly acme: Org;
}

export async function install(): Promise<Installation> {
  const daemon = await startTestDaemon();
  const id = await seedOrg(daemon.services.db.knex, 'acme', 'Acme');
  return { daemon, engine: daemon.configExchange.engine, acme: { id, slug: 'acme' } };
}

/** The platform admin applying under `correlationId`. */
export function operator(correlationId: string) {
  const audit: AuditContext = {
    requestId: correlationId,
    route: 'POST /config-exchange/operations',
    clientIp: '127.0.0.1',
    userAgent: undefined,
    subject: 'sub-root',
    username: 'root',
  };
  return { correlationId, actor: { sub: 'sub-root', username: 'root' }, audit };
}

let seq = 0;

/** Plans `yaml` for the installation's `acme` (only `families`) and applies the plan. */
export async function planAndApply(target: Installation, yaml: string, options: { prune?: boolean; families?: string[] } = {}) {
  const id = `00000000-0000-4000-9000-${String(++seq).padStart(12, '0')}`;
  const plan = await target.engine.plan(target.engine.parse(yaml), {
    planId: id,
    org: target.acme,
    prune: options.prune ?? false,
    families: options.families,
  });
  const result = await target.engine.apply(plan, target.acme, operator(id));
  return { plan, result };
}

/** What the installation exports of `families` for `acme`. */
export async function exported(target: Installation, families: string[]): Promise<string> {
  return (await target.engine.export({ org: target.acme, families })).yaml;
}
