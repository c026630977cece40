import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CATALOGUE } from '../shared/catalogue/catalogue.js';
import { AuditRepo } from './audit/audit-repo.js';
import { AuditWriter } from './audit/audit-writer.js';
import type { Config } from './config/config.js';
import { openDatabase, type Database } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { Authenticator } from './auth/authenticator.js';
import { JwtVerifier } from './auth/jwt/jwt-verifier.js';
import { PatRepo } from './auth/pat/pat-repo.js';
import { PatService } from './auth/pat/pat-service.js';
import { TicketsRepo } from './auth/tickets/tickets-repo.js';
import { TicketsService } from './auth/tickets/tickets-service.js';
import { DEFAULT_POLICIES, type EffectivePolicies } from './authz/effective-policies.js';
import { apiTokenRoutes } from './domains/api-tokens/routes.js';
import { authRoutes } from './domains/auth/routes.js';
import { docsRoutes } from './domains/docs/routes.js';
import { systemRoutes } from './domains/system/routes.js';
import { createApp } from './http/app.js';
import { buildOpenApi } from './http/openapi.js';
import type { DomainRoutes } from './http/types.js';
import type { Logger } from './logging/logger.js';
import { OrgsRepo } from './tenancy/orgs-repo.js';
import { UsersRepo } from './tenancy/users-repo.js';

/** What the domains are built from; grows as domains are added. */
export interface Services {
  readonly config: Config;
  readonly log: Logger;
  readonly db: Database;
  readonly audit: AuditWriter;
  readonly users: UsersRepo;
  readonly orgs: OrgsRepo;
  readonly pats: PatService;
  readonly tickets: TicketsService;
  readonly policies: EffectivePolicies;
  readonly authenticator: Authenticator;
}

export interface DaemonOptions {
  /** An already open database (tests hand in a copy of a migrated template); otherwise opened from config. */
  readonly database?: Database;
  /** Extra handlers for catalogue routes, for tests that need a handler with particular behaviour. */
  readonly extraDomains?: (services: Services) => readonly DomainRoutes[];
}

export interface RunningDaemon {
  readonly url: string;
  readonly services: Services;
  /** Graceful stop: refuse new connections, let in-flight requests finish within the grace period, close the database. */
  stop(): Promise<void>;
}

/** The composition root: config -> database -> migrations -> services -> app -> listen. */
export async function startDaemon(config: Config, log: Logger, options: DaemonOptions = {}): Promise<RunningDaemon> {
  const started = performance.now();
  const db = options.database ?? (await openDatabase(config, log));
  const ran = await migrateToLatest(db.knex);
  if (ran.length > 0) log.info({ migrations: ran }, `applied ${ran.length} migration(s)`);

  const services = buildServices(config, log, db);
  let draining = false;
  let openApiJson = '';
  const domains: DomainRoutes[] = [
    systemRoutes({ db, isDraining: () => draining }),
    docsRoutes({ openApi: () => openApiJson }),
    authRoutes(services),
    apiTokenRoutes(services.pats),
    ...(options.extraDomains?.(services) ?? []),
  ];
  const { app, mounted } = createApp({
    ...services,
    trustProxyHeaders: config.trustProxyHeaders,
    maxBodyBytes: config.maxBodyBytes,
    domains,
    isDraining: () => draining,
  });
  openApiJson = JSON.stringify(buildOpenApi(CATALOGUE, mounted));

  const server = createServer(app.callback());
  server.listen(config.port, config.host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}`;
  log.info({ url, database: db.kind, startup_ms: Math.round(performance.now() - started) }, `svcd listening on ${url}`);

  return {
    url,
    services,
    stop: async () => {
      draining = true;
      await closeServer(server, config.shutdownGraceSeconds * 1000, log);
      await db.close();
      log.info('svcd stopped');
    },
  };
}

function buildServices(config: Config, log: Logger, db: Database): Services {
  const audit = new AuditWriter(new AuditRepo(db.knex));
  const users = new UsersRepo(db.knex);
  const orgs = new OrgsRepo(db.knex);
  const pats = new PatService(new PatRepo(db.knex), users, orgs, audit);
  const tickets = new TicketsService(new TicketsRepo(db.knex), config.ticketTtlSeconds);
  const jwt = config.idpIssuer
    ? new JwtVerifier(
        {
          issuer: config.idpIssuer,
          publicIssuer: config.idpPublicIssuer,
          audience: config.idpAudience,
          jwksCacheSeconds: config.idpJwksCacheTtl,
          minRefreshSeconds: config.idpJwksMinRefreshSeconds,
          fetchTimeoutMs: config.idpHttpTimeoutMs,
          cacheSize: config.tokenCacheSize,
        },
        log,
      )
    : undefined;
  const policies = DEFAULT_POLICIES;
  const authenticator = new Authenticator(config, jwt, pats, tickets);
  return { config, log, db, audit, users, orgs, pats, tickets, policies, authenticator };
}

async function closeServer(server: Server, graceMs: number, log: Logger): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const timer = setTimeout(() => {
    log.warn({ grace_ms: graceMs }, 'grace period over: closing connections with requests still in flight');
    server.closeAllConnections();
  }, graceMs);
  await closed;
  clearTimeout(timer);
}
