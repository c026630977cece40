import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CATALOGUE } from '../shared/catalogue/catalogue.js';
import { AuditRepo } from './audit/audit-repo.js';
import { AuditWriter } from './audit/audit-writer.js';
import { Authenticator } from './auth/authenticator.js';
import { JwtVerifier } from './auth/jwt/jwt-verifier.js';
import { PatRepo } from './auth/pat/pat-repo.js';
import { PatService } from './auth/pat/pat-service.js';
import { TicketsRepo } from './auth/tickets/tickets-repo.js';
import { TicketsService } from './auth/tickets/tickets-service.js';
import { Explainer } from './authz/explain.js';
import { MembershipCache } from './authz/membership-cache.js';
import { MembershipSync } from './authz/membership-sync.js';
import { OrgAccessRepo } from './authz/org-access-repo.js';
import { OverrideRepo } from './authz/override-repo.js';
import { OverrideService } from './authz/override-service.js';
import { OverrideStore } from './authz/override-store.js';
import { OverrideSync } from './authz/override-sync.js';
import type { Config } from './config/config.js';
import { openDatabase, type Database } from './db/database.js';
import { SchemaKeeper } from './db/schema-keeper.js';
import type { SyncOptions } from './db/reload-triggers.js';
import { TriggerConfig } from './db/trigger-config.js';
import { frontDoor } from './http/front-door.js';
import { GracefulClose } from './http/graceful-close.js';
import { apiTokenRoutes } from './domains/api-tokens/routes.js';
import { AuditLogRepo } from './domains/audit-logs/audit-log-repo.js';
import { AuditLogService } from './domains/audit-logs/audit-log-service.js';
import { auditLogRoutes } from './domains/audit-logs/routes.js';
import { authRoutes } from './domains/auth/routes.js';
import { docsRoutes } from './domains/docs/routes.js';
import { flowsModule } from './domains/flows/module.js';
import { inventoryModule } from './domains/inventory/module.js';
import { runsModule } from './domains/runs/module.js';
import { openSecretsModule, type SecretsModule } from './domains/secrets/module.js';
import { stepHandlerRoutes } from './domains/step-handlers/routes.js';
import { webhooksModule } from './domains/webhooks/module.js';
import { IdpMappingsRepo } from './tenancy/idp-mappings-repo.js';
import { IdpMappingsService } from './domains/idp-mappings/idp-mappings-service.js';
import { idpMappingRoutes } from './domains/idp-mappings/routes.js';
import { MembersService } from './domains/orgs/members-service.js';
import { MembershipsRepo } from './domains/orgs/memberships-repo.js';
import { OrgsService } from './domains/orgs/orgs-service.js';
import { orgRoutes } from './domains/orgs/routes.js';
import { permissionRoutes } from './domains/permissions/routes.js';
import { systemRoutes } from './domains/system/routes.js';
import { createApp } from './http/app.js';
import { buildOpenApi } from './http/openapi.js';
import type { DomainRoutes, MountedRoute } from './http/types.js';
import type { Logger } from './logging/logger.js';
import { OrgsRepo } from './tenancy/orgs-repo.js';
import { LoginSync } from './tenancy/login-sync.js';
import { LoginSyncRepo } from './tenancy/login-sync-repo.js';
import { MappingIndex } from './tenancy/mapping-index.js';
import { MappingSync } from './tenancy/mapping-sync.js';
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
  readonly overrideStore: OverrideStore;
  readonly overrideSync: OverrideSync;
  readonly overrides: OverrideService;
  readonly orgAccess: OrgAccessRepo;
  readonly membershipCache: MembershipCache;
  readonly membershipSync: MembershipSync;
  /** Caches of the run-starting paths and what empties them. */
  readonly triggerConfig: TriggerConfig;
  readonly explainer: Explainer;
  readonly authenticator: Authenticator;
  readonly idpMappings: IdpMappingsRepo;
  readonly mappingIndex: MappingIndex;
  readonly mappingSync: MappingSync;
  readonly loginSync: LoginSync;
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
  /**
   * Graceful stop: refuse new connections, answer every request that arrived on an open one (`Connection:
   * close`) within the grace period, close the database.
   */
  stop(): Promise<void>;
}

/**
 * The composition root: config -> database -> migrations -> services -> app -> listen. A database that
 * is down at start-up does not stop the daemon: it serves (registry defaults, /ready 503) and migrates
 * and loads overrides and the IdP mapping index as soon as the database answers.
 */
export async function startDaemon(config: Config, log: Logger, options: DaemonOptions = {}): Promise<RunningDaemon> {
  const started = performance.now();
  const db = options.database ?? (await openDatabase(config, log));
  const schema = new SchemaKeeper(db, log);
  const services = buildServices(config, log, db);
  // Set once the secrets module opens; when the schema is ready at start-up, opening checks the key itself.
  let secretsOpening: Promise<SecretsModule> | undefined;
  await schema.start(() => {
    services.overrideSync.refresh();
    void services.mappingIndex.refresh();
    // The database came up after start-up: the secrets key is checked now, and a wrong one stops the process (EX_CONFIG).
    void secretsOpening?.then(
      (opened) =>
        opened.verifyKeyLater((error) => {
          log.fatal({ variables: error.problems.map((p) => p.variable) }, error.message);
          process.exit(78);
        }),
      () => undefined,
    );
  });
  services.overrideSync.start();
  services.mappingSync.start();
  services.membershipSync.start();
  services.triggerConfig.start();

  // The platform core, in dependency order: triggers need runs, runs need flows, devices and secrets.
  secretsOpening = openSecretsModule(services, { schemaReady: schema.ready });
  let secrets: SecretsModule;
  try {
    secrets = await secretsOpening;
  } catch (error) {
    // A refused start (a wrong secrets key) leaves nothing running behind it.
    schema.stop();
    await services.overrideSync.stop();
    await services.mappingSync.stop();
    await services.membershipSync.stop();
    await services.triggerConfig.stop();
    if (!options.database) await db.close();
    throw error;
  }
  const inventory = inventoryModule(services);
  const flows = flowsModule(services);
  const runs = runsModule(services);
  const webhooks = webhooksModule(services, { secrets: secrets.resolver, devices: inventory.devices, admission: runs.admission });
  flows.addDeleteGuard(webhooks.flowDeleteGuard);

  let draining = false;
  const openApi = openApiCache(() => mounted, services.overrideStore);
  const domains: DomainRoutes[] = [
    systemRoutes({ db, isDraining: () => draining, isSchemaReady: () => schema.ready }),
    docsRoutes({ openApi }),
    authRoutes(services),
    apiTokenRoutes(services.pats),
    permissionRoutes(services),
    auditLogRoutes(new AuditLogService(new AuditLogRepo(db.knex), services.audit)),
    orgRoutes({
      orgs: new OrgsService(services.orgs, services.audit, async () => {
        services.orgAccess.invalidate();
        services.triggerConfig.invalidate();
        await services.mappingIndex.refresh();
      }),
      members: new MembersService(services.orgs, new MembershipsRepo(db.knex), services.users, services.audit, () =>
        services.membershipCache.invalidate(),
      ),
    }),
    idpMappingRoutes(
      new IdpMappingsService(
        services.idpMappings,
        services.users,
        services.audit,
        {
          groupClaim: config.orgIdpGroupClaim,
          authoritative: config.orgIdpSyncAuthoritative,
        },
        services.mappingIndex,
      ),
    ),
    ...secrets.routes,
    ...inventory.routes,
    stepHandlerRoutes(),
    ...flows.routes,
    ...runs.routes,
    ...webhooks.routes,
    ...(options.extraDomains?.(services) ?? []),
  ];
  const { app, mounted } = createApp({
    ...services,
    policies: services.overrideStore,
    trustProxyHeaders: config.trustProxyHeaders,
    maxBodyBytes: config.maxBodyBytes,
    checkResponses: config.checkResponses,
    domains,
    isDraining: () => draining,
  });

  const shedding = webhooks.frontDoor({ log, trustProxyHeaders: config.trustProxyHeaders, isDraining: () => draining });
  const server = createServer();
  const connections = new GracefulClose(server);
  server.on('request', connections.track(frontDoor(app.callback(), [shedding])));
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
      await connections.close(config.shutdownGraceSeconds * 1000, log);
      schema.stop();
      await services.overrideSync.stop();
      await services.mappingSync.stop();
      await services.membershipSync.stop();
      await services.triggerConfig.stop();
      await db.close();
      log.info('svcd stopped');
    },
  };
}

/** The OpenAPI document, rebuilt only when the overrides (and so the security requirements) change. */
function openApiCache(mounted: () => readonly MountedRoute[], store: OverrideStore): () => string {
  let version = -1;
  let json = '';
  return () => {
    if (version !== store.snapshot.version) {
      version = store.snapshot.version;
      json = JSON.stringify(buildOpenApi(CATALOGUE, mounted(), store));
    }
    return json;
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
          groupClaim: config.orgIdpGroupClaim,
        },
        log,
      )
    : undefined;
  const overrideRepo = new OverrideRepo(db.knex);
  const overrideStore = new OverrideStore(overrideRepo, log);
  const sync: SyncOptions = { listen: db.listen, refreshSeconds: config.permissionRefreshSeconds };
  const overrideSync = new OverrideSync(overrideStore, sync, log);
  const overrides = new OverrideService(db.knex, CATALOGUE, overrideRepo, overrideStore, audit);
  const membershipCache = new MembershipCache({ ttlMs: config.permissionRefreshSeconds * 1000 });
  const orgAccess = new OrgAccessRepo(db.knex, membershipCache, { ttlMs: config.permissionRefreshSeconds * 1000 });
  const membershipSync = new MembershipSync(orgAccess, sync);
  const triggerConfig = new TriggerConfig(sync);
  const explainer = new Explainer(overrideStore, orgAccess);
  const authenticator = new Authenticator(config, jwt, pats, tickets);
  const idpMappings = new IdpMappingsRepo(db.knex);
  const mappingIndex = new MappingIndex(idpMappings, log);
  const mappingSync = new MappingSync(mappingIndex, sync);
  const loginSyncOptions = {
    sync: config.orgIdpSync,
    groupClaim: config.orgIdpGroupClaim,
    authoritative: config.orgIdpSyncAuthoritative,
    autoJoin: config.orgAutoJoin,
  };
  const loginSync = new LoginSync(db.knex, users, new LoginSyncRepo(db.knex), idpMappings, mappingIndex, audit, loginSyncOptions, () =>
    membershipCache.invalidate(),
  );
  return {
    config,
    log,
    db,
    audit,
    users,
    orgs,
    pats,
    tickets,
    overrideStore,
    overrideSync,
    overrides,
    orgAccess,
    membershipCache,
    membershipSync,
    triggerConfig,
    explainer,
    authenticator,
    idpMappings,
    mappingIndex,
    mappingSync,
    loginSync,
  };
}
