import { once } from 'node:events';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CATALOGUE } from '../shared/catalogue/catalogue.js';
import type { OverrideStore } from './authz/override-store.js';
import type { Config } from './config/config.js';
import { openDatabase, type Database } from './db/database.js';
import { SchemaKeeper } from './db/schema-keeper.js';
import { apiTokenRoutes } from './domains/api-tokens/routes.js';
import { AuditLogRepo } from './domains/audit-logs/audit-log-repo.js';
import { AuditLogService } from './domains/audit-logs/audit-log-service.js';
import { auditLogRoutes } from './domains/audit-logs/routes.js';
import { authRoutes } from './domains/auth/routes.js';
import { docsRoutes } from './domains/docs/routes.js';
import { artifactsModule } from './domains/artifacts/module.js';
import { binaryArtifactsModule } from './domains/binary-artifacts/module.js';
import { filesModule } from './domains/files/module.js';
import { flowAttachmentsModule } from './domains/flow-attachments/module.js';
import { flowsModule } from './domains/flows/module.js';
import { idpMappingsServiceOf } from './domains/idp-mappings/idp-mappings-service.js';
import { idpMappingRoutes } from './domains/idp-mappings/routes.js';
import { inventoryModule } from './domains/inventory/module.js';
import { inventoryProvidersModule } from './domains/inventory-providers/module.js';
import { housekeepingJobs } from './domains/maintenance/housekeeping-jobs.js';
import type { MaintenanceJob } from './domains/maintenance/job.js';
import type { Clock } from './domains/maintenance/maintenance-runner.js';
import { maintenanceModule, type MaintenanceModule } from './domains/maintenance/module.js';
import { notificationsModule, type NotificationsModule } from './domains/notifications/module.js';
import { MembersService } from './domains/orgs/members-service.js';
import { MembershipsRepo } from './domains/orgs/memberships-repo.js';
import { OrgsService } from './domains/orgs/orgs-service.js';
import { orgRoutes } from './domains/orgs/routes.js';
import { permissionRoutes } from './domains/permissions/routes.js';
import { runCallbacksModule } from './domains/run-callbacks/module.js';
import { approvalsModule } from './domains/approvals/module.js';
import { monitorsModule } from './domains/monitors/module.js';
import { runEventsModule } from './domains/run-events/module.js';
import { runsModule } from './domains/runs/module.js';
import { schedulesModule, type SchedulesModule } from './domains/schedules/module.js';
import { gitModule } from './domains/git/module.js';
import { registryModule, type RegistryModule } from './domains/registry/module.js';
import { platformSyncModule } from './domains/platform-sync/module.js';
import { openSecretsModule, type SecretsModule } from './domains/secrets/module.js';
import { settingsRoutes } from './domains/settings/routes.js';
import { dashboardModule } from './domains/dashboard/module.js';
import { platformHealthModule } from './domains/platform-health/module.js';
import { stepHandlerRoutes } from './domains/step-handlers/routes.js';
import { systemRoutes } from './domains/system/routes.js';
import { webhooksModule } from './domains/webhooks/module.js';
import { workersModule, type WorkersModule } from './domains/workers/module.js';
import { runTokensModule } from './domains/run-tokens/module.js';
import { iacStatesModule } from './domains/iac-states/module.js';
import { createApp } from './http/app.js';
import { frontDoor, type FrontDoorCheck } from './http/front-door.js';
import { GracefulClose } from './http/graceful-close.js';
import { withReplacements } from './http/mount-routes.js';
import { buildOpenApi } from './http/openapi.js';
import type { DomainRoutes, MountedRoute } from './http/types.js';
import type { LiveHub } from './live-streams/live-hub.js';
import type { Logger } from './logging/logger.js';
import { buildServices, startSyncs, stopSyncs, type Services } from './services.js';
import { variablesModule } from './domains/variables/module.js';
import { flowInterfaceModule } from './domains/flow-interface/module.js';
import { configExchangeModule, type ConfigExchangeModule } from './domains/config-exchange/module.js';

export type { Services } from './services.js';

/** Exit code for a configuration the daemon refuses (sysexits EX_CONFIG): a secrets key found wrong after start-up. */
const EXIT_CONFIG = 78;

export interface DaemonOptions {
  /** An already open database (tests hand in a copy of a migrated template); otherwise opened from config. */
  readonly database?: Database;
  /** Extra handlers for catalogue routes, for tests that need a handler with particular behaviour. */
  readonly extraDomains?: (services: Services) => readonly DomainRoutes[];
  /** Tests: handlers that replace the daemon's own on their routes (probes of the request path). */
  readonly replaceRoutes?: (services: Services) => readonly DomainRoutes[];
  /** Tests: extra maintenance jobs, run after the daemon's own, and the maintenance pass's clock. */
  readonly maintenance?: { readonly jobs?: (services: Services) => readonly MaintenanceJob[]; readonly clock?: Clock };
  /** The clock schedules (and, unless `maintenance.clock` says otherwise, the maintenance pass) read "now" from; tests drive fires with their own. */
  readonly clock?: () => Date;
  /** Tests: the notification senders' backoff jitter, a draw in [0, 1). */
  readonly random?: () => number;
}

export interface RunningDaemon {
  readonly url: string;
  readonly services: Services;
  /** The live run event streams this daemon serves (how many are open, how many reads they cost). */
  readonly streams: Pick<LiveHub, 'subscriberCount' | 'reads'>;
  /** The live monitor sample streams, likewise. */
  readonly monitorStreams: Pick<LiveHub, 'subscriberCount' | 'reads'>;
  /** The maintenance pass: its runner (the tick's function) and this instance's timer. */
  readonly maintenance: Pick<MaintenanceModule, 'runner' | 'timer'>;
  /** Configuration exchange: its engine and this instance's runner of queued operations. */
  readonly configExchange: Pick<ConfigExchangeModule, 'engine' | 'runner'>;
  /**
   * Graceful stop: refuse new connections, answer every request that arrived on an open one (`Connection:
   * close`) within the grace period, close the database.
   */
  stop(): Promise<void>;
}

/** Whether the daemon is shutting down: /ready answers 503 and every answer closes its connection. */
type IsDraining = () => boolean;

/**
 * The composition root: database -> migrations -> services -> app -> listen. A database that is down at
 * start-up does not stop the daemon: it serves (registry defaults, /ready 503) and migrates and loads
 * overrides and the IdP mapping index as soon as the database answers. A start that fails stops what it
 * had started with the sequence a graceful stop ends with (`stopRunning`).
 */
export async function startDaemon(config: Config, log: Logger, options: DaemonOptions = {}): Promise<RunningDaemon> {
  const started = performance.now();
  const db = options.database ?? (await openDatabase(config, log));
  const services = buildServices(config, log, db);
  const schema = new SchemaKeeper(db, log);
  let draining = false;
  const isDraining = () => draining;
  let server: Listening;
  let background: Background | undefined;
  try {
    await migrate(schema, services);
    const secrets = await openSecrets(schema, services);
    const made = makeDomains(services, schema, secrets, isDraining, options);
    background = made.background;
    background.workers.start();
    for (const hub of background.hubs) hub.start();
    background.maintenance.start();
    background.schedules.start();
    background.notifications.start();
    background.registry.start();
    background.configExchange.runner.start();
    server = await listen(config, makeApp(services, made.domains, isDraining), made.frontDoorChecks);
  } catch (error) {
    // A refused start (a wrong secrets key, a migration failing on a reachable database, a port taken)
    // leaves nothing running behind it; a database handed in stays its caller's to close.
    await stopRunning(services, schema, { closeDatabase: !options.database, background });
    throw error;
  }
  log.info({ url: server.url, database: db.kind, startup_ms: Math.round(performance.now() - started) }, `svcd listening on ${server.url}`);

  const running = background!;
  return {
    url: server.url,
    services,
    streams: running.streams.events,
    monitorStreams: running.streams.monitors,
    maintenance: running.maintenance,
    configExchange: running.configExchange,
    stop: async () => {
      draining = true;
      // Waiting heartbeats answer now rather than hold the close for their whole wait, and live streams,
      // which never finish by themselves, end first, so the close waits only for real requests.
      running.workers.drain();
      for (const hub of running.hubs) hub.endAll();
      await server.connections.close(config.shutdownGraceSeconds * 1000, log);
      await stopRunning(services, schema, { closeDatabase: true, background: running });
      log.info('svcd stopped');
    },
  };
}

/**
 * Brings the schema up to date, or with the database down keeps retrying; starts the syncs of the
 * in-process copies, and has those that a failed first load left empty reload once the database answers.
 */
async function migrate(schema: SchemaKeeper, services: Services): Promise<void> {
  await schema.start();
  if (!schema.ready) {
    schema.whenReady(() => {
      services.overrideSync.refresh();
      void services.mappingIndex.refresh();
    });
  }
  startSyncs(services);
}

/**
 * The secrets module, its key checked against the database at once when the schema is ready (a wrong
 * key refuses the start), else when the database answers: a wrong key then stops the process (EX_CONFIG).
 */
async function openSecrets(schema: SchemaKeeper, services: Services): Promise<SecretsModule> {
  const checkedNow = schema.ready;
  const secrets = await openSecretsModule(services, { schemaReady: checkedNow });
  if (!checkedNow) {
    schema.whenReady(() =>
      secrets.verifyKeyLater((error) => {
        services.log.fatal({ variables: error.problems.map((p) => p.variable) }, error.message);
        process.exit(EXIT_CONFIG);
      }),
    );
  }
  return secrets;
}

/**
 * Every domain's routes, the platform core's modules opened in dependency order (triggers need runs,
 * runs need flows, devices and secrets), and the front door's checks (the webhook trigger's backstop).
 */
function makeDomains(
  services: Services,
  schema: SchemaKeeper,
  secrets: SecretsModule,
  isDraining: IsDraining,
  options: DaemonOptions,
): { domains: DomainRoutes[]; frontDoorChecks: FrontDoorCheck[]; background: Background } {
  const { config, db } = services;
  const inventory = inventoryModule(services);
  const flows = flowsModule(services);
  const runs = runsModule(services);
  const iacStates = iacStatesModule(services, { sealer: secrets.sealer });
  const runTokens = runTokensModule(services, { holdState: iacStates.holdState });
  const runCallbacks = runCallbacksModule(services, {
    admission: runs.admission,
    runs: runs.runs,
    stepEnded: [runTokens.stepEnded, iacStates.stepEnded],
  });
  const runEvents = runEventsModule(services);
  const approvals = approvalsModule(services);
  const monitors = monitorsModule(services);
  const webhooks = webhooksModule(services, { secrets: secrets.resolver, devices: inventory.devices, admission: runs.admission });
  flows.addDeleteGuard(webhooks.flowDeleteGuard);
  const workers = workersModule(services);
  const schedules = schedulesModule(services, { admission: runs.admission }, options.clock);
  const variables = variablesModule(services, { secrets: secrets.resolver, flows });
  const flowInterface = flowInterfaceModule(services, { flows });
  const git = gitModule(services, { flows: flows.git, secrets: secrets.resolver });
  const notifications = notificationsModule(
    services,
    { secrets: secrets.resolver, outbound: (url, request) => services.outbound.request(url, request) },
    { clock: options.clock, random: options.random },
  );
  const files = filesModule(
    services,
    { secrets: secrets.resolver, fetchUrl: (url, request) => services.outbound.request(url, request) },
    options.clock,
  );
  // After files: artifacts may be kept in an organization's file repository.
  const artifacts = artifactsModule(services, { repositories: files.blobs });
  runs.runs.onPurged(artifacts.runPurged);
  // After files: attachments keep their bytes in the organization's default file repository.
  const flowAttachments = flowAttachmentsModule(services, { flows, blobs: files.blobs });
  const binaryArtifacts = binaryArtifactsModule(services, { files });
  // After files: a static provider's document may be a file, read through the files module.
  const inventoryProviders = inventoryProvidersModule(services, { secrets: secrets.resolver, files: files.texts });
  const registry = registryModule(services, { secrets: secrets.resolver, runTokens: services.runTokens });
  const configExchange = configExchangeModule(services, { flows });
  const platformSync = platformSyncModule(
    services,
    { engine: configExchange.engine, secrets: secrets.resolver, files: files.texts },
    options.clock,
  );
  const maintenanceJobs: MaintenanceJob[] = [
    // The maintenance pass's jobs (docs/maintenance.md), run in this order: one line per job or per module's jobs.
    ...workers.maintenanceJobs,
    ...approvals.maintenanceJobs,
    ...schedules.maintenanceJobs,
    ...artifacts.maintenanceJobs,
    ...files.maintenanceJobs,
    ...notifications.maintenanceJobs,
    ...flowAttachments.maintenanceJobs,
    ...housekeepingJobs(services),
    ...(options.maintenance?.jobs?.(services) ?? []),
  ];
  const maintenance = maintenanceModule(services, maintenanceJobs, { clock: options.maintenance?.clock ?? options.clock });
  const dashboard = dashboardModule(services, options.clock);
  const platformHealth = platformHealthModule(services, {
    secretBackends: secrets.backendsHealth,
    stores: files.stores,
    maintenanceJobs: maintenance.runner.jobNames,
  });
  const domains: DomainRoutes[] = [
    systemRoutes({ db, isDraining, isSchemaReady: () => schema.ready }),
    authRoutes(services),
    apiTokenRoutes(services.pats),
    permissionRoutes(services),
    auditLogRoutes(new AuditLogService(new AuditLogRepo(db.knex), services.audit)),
    ...tenancyRoutes(services),
    ...secrets.routes,
    ...inventory.routes,
    stepHandlerRoutes(),
    ...flows.routes,
    ...runs.routes,
    ...runCallbacks.routes,
    ...approvals.routes,
    ...runEvents.routes,
    ...monitors.routes,
    ...webhooks.routes,
    ...workers.routes,
    ...maintenance.routes,
    settingsRoutes(config),
    ...schedules.routes,
    ...artifacts.routes,
    ...variables.routes,
    ...flowInterface.routes,
    ...git.routes,
    ...inventoryProviders.routes,
    ...notifications.routes,
    ...files.routes,
    ...flowAttachments.routes,
    ...binaryArtifacts.routes,
    ...runTokens.routes,
    ...iacStates.routes,
    ...registry.routes,
    ...dashboard.routes,
    ...platformHealth.routes,
    ...configExchange.routes,
    ...platformSync.routes,
    ...(options.extraDomains?.(services) ?? []),
  ];
  const shedding = webhooks.frontDoor({ log: services.log, trustProxyHeaders: config.trustProxyHeaders, isDraining });
  return {
    domains: withReplacements(domains, options.replaceRoutes?.(services) ?? []),
    frontDoorChecks: [shedding],
    background: background({
      workers,
      maintenance,
      schedules,
      streams: { events: runEvents.hub, monitors: monitors.hub },
      notifications,
      registry,
      configExchange,
    }),
  };
}

/** Organizations, their members and their IdP mappings. */
function tenancyRoutes(services: Services): DomainRoutes[] {
  const { db } = services;
  const onOrgChange = async () => {
    services.orgAccess.invalidate();
    services.triggerConfig.invalidate();
    await services.mappingIndex.refresh();
  };
  return [
    orgRoutes({
      orgs: new OrgsService(services.orgs, services.audit, onOrgChange),
      members: new MembersService(services.orgs, new MembershipsRepo(db.knex), services.users, services.audit, () =>
        services.membershipCache.invalidate(),
      ),
    }),
    idpMappingRoutes(idpMappingsServiceOf(services)),
  ];
}

/** The Koa app over every route, with the docs routes, which serve the OpenAPI document of what was mounted. */
function makeApp(services: Services, domains: readonly DomainRoutes[], isDraining: IsDraining): RequestListener {
  const openApi = openApiCache(() => mounted, services.overrideStore);
  const { app, mounted } = createApp({
    ...services,
    policies: services.overrideStore,
    trustProxyHeaders: services.config.trustProxyHeaders,
    maxBodyBytes: services.config.maxBodyBytes,
    checkResponses: services.config.checkResponses,
    domains: [docsRoutes({ openApi }), ...domains],
    isDraining,
  });
  return app.callback();
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

/** What the domains set going beside their routes: started with the daemon, drained when it stops, then stopped. */
interface Background {
  /** The heartbeats' waker. */
  readonly workers: WorkersModule;
  /** The maintenance timer (the reaper among its jobs). */
  readonly maintenance: MaintenanceModule;
  /** The live streams' hubs, by what they carry. */
  readonly streams: { readonly events: LiveHub; readonly monitors: LiveHub };
  /** The same hubs, to start, end and stop together. */
  readonly hubs: readonly LiveHub[];
  /** The embedded scheduler loop. */
  readonly schedules: SchedulesModule;
  /** The notification sender loop. */
  readonly notifications: NotificationsModule;
  /** The runner of configuration exchange operations. */
  readonly configExchange: ConfigExchangeModule;
  /** The registry authorizer's run-token cache sync. */
  readonly registry: RegistryModule;
}

function background(parts: Omit<Background, 'hubs'>): Background {
  return { ...parts, hubs: Object.values(parts.streams) };
}

interface Listening {
  readonly url: string;
  /** Tracks the open connections, for a graceful close. */
  readonly connections: GracefulClose;
}

async function listen(config: Config, app: RequestListener, checks: readonly FrontDoorCheck[]): Promise<Listening> {
  const server = createServer();
  const connections = new GracefulClose(server);
  server.on('request', connections.track(frontDoor(app, checks)));
  server.listen(config.port, config.host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return { url: `http://${host}:${port}`, connections };
}

/**
 * What start-up set going, stopped: the migration retry, the scheduler loop and the maintenance timer (a
 * pass under way ends first), the workers' waker, the live streams' hubs, the syncs, the outbound guard's
 * pooled connections, and the database when this daemon owns it. Safe at any point of start-up.
 */
async function stopRunning(
  services: Services,
  schema: SchemaKeeper,
  { closeDatabase, background }: { closeDatabase: boolean; background: Background | undefined },
): Promise<void> {
  schema.stop();
  await background?.schedules.stop();
  await background?.notifications.stop();
  await background?.registry.stop();
  await background?.configExchange.runner.stop();
  await background?.maintenance.stop();
  await background?.workers.stop();
  for (const hub of background?.hubs ?? []) await hub.stop();
  await stopSyncs(services);
  services.outbound.close();
  if (closeDatabase) await services.db.close();
}
