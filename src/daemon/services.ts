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
import type { Database } from './db/database.js';
import type { SyncOptions } from './db/reload-triggers.js';
import { TriggerConfig } from './db/trigger-config.js';
import type { Logger } from './logging/logger.js';
import { OutboundHttp } from '../shared/net/outbound-http.js';
import { IdpMappingsRepo } from './tenancy/idp-mappings-repo.js';
import { LoginSync } from './tenancy/login-sync.js';
import { LoginSyncRepo } from './tenancy/login-sync-repo.js';
import { MappingIndex } from './tenancy/mapping-index.js';
import { MappingSync } from './tenancy/mapping-sync.js';
import { OrgsRepo } from './tenancy/orgs-repo.js';
import { UsersRepo } from './tenancy/users-repo.js';
import { RunTokenVerifier } from './domains/run-tokens/run-token-verifier.js';
import { RunTokensRepo } from './domains/run-tokens/run-tokens-repo.js';

/**
 * What the domains are built from; grows as domains are added. Its own file, below the composition root
 * (daemon.ts), so that the domains' modules, which take it, import nothing that imports them.
 */
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
  /** The identity provider's token verifier; undefined without SERVICE_IDP_ISSUER. */
  readonly jwt: JwtVerifier | undefined;
  readonly idpMappings: IdpMappingsRepo;
  readonly mappingIndex: MappingIndex;
  readonly mappingSync: MappingSync;
  readonly loginSync: LoginSync;
  /** Requests to addresses users configure, behind the address policy (src/shared/net/outbound-http.ts). */
  readonly outbound: OutboundHttp;
  /** Checks a presented run token (`svc_run_…`) for the state backend and the registry proxy. */
  readonly runTokens: RunTokenVerifier;
}

/** The services over one database; nothing runs until `startSyncs`. */
export function buildServices(config: Config, log: Logger, db: Database): Services {
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
  const runTokens = new RunTokenVerifier(new RunTokensRepo(db.knex));
  const authenticator = new Authenticator(config, jwt, pats, tickets, runTokens);
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
    jwt,
    idpMappings,
    mappingIndex,
    mappingSync,
    loginSync,
    outbound: new OutboundHttp({ allowedNetworks: config.outboundAllowedNetworks, timeoutMs: config.outboundTimeoutMs }),
    runTokens,
  };
}

/** Starts what keeps the in-process copies current across instances (LISTEN, periodic reloads). */
export function startSyncs(services: Services): void {
  services.overrideSync.start();
  services.mappingSync.start();
  services.membershipSync.start();
  services.triggerConfig.start();
}

/** Stops them; safe whether or not they were started. */
export async function stopSyncs(services: Services): Promise<void> {
  await services.overrideSync.stop();
  await services.mappingSync.stop();
  await services.membershipSync.stop();
  await services.triggerConfig.stop();
}
