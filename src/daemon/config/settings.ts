import { resolve } from 'node:path';
import { integerBetween, nonEmpty, oneOf, parseBoolean, parseHttpUrl, parseKey256, parseNetworkList, parsePostgresUrl } from './parsers.js';

/**
 * Every setting of the daemon, read from the environment once at start-up. Each entry carries its
 * default and its meaning here, where it is defined; the README's configuration table mirrors this
 * list and a test keeps the two equal.
 */
export interface SettingDefinition<T> {
  readonly env: string;
  /** The default as it would be written in the environment; absent means "unset". */
  readonly default?: string;
  readonly doc: string;
  /** Never echoed back in an error message. */
  readonly secret?: boolean;
  readonly parse: (raw: string) => T;
}

/** Keeps each entry's exact shape, so the Config type knows which settings have a default. */
function setting<const D extends SettingDefinition<unknown>>(definition: D): D {
  return definition;
}

export const ENVIRONMENTS = ['dev', 'prod', 'production'] as const;
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const SETTINGS = {
  environment: setting({
    env: 'SERVICE_ENVIRONMENT',
    default: 'dev',
    doc: '`dev`, `prod` or `production`. Production refuses to start without its security settings.',
    parse: oneOf(ENVIRONMENTS),
  }),
  host: setting({
    env: 'SERVICE_HOST',
    default: '127.0.0.1',
    doc: 'Address the HTTP server binds to. Use `0.0.0.0` to accept connections from other hosts.',
    parse: nonEmpty,
  }),
  port: setting({
    env: 'SERVICE_PORT',
    default: '8080',
    doc: 'TCP port of the HTTP server; `0` picks a free port (printed at start-up).',
    parse: integerBetween(0, 65535),
  }),
  logLevel: setting({
    env: 'SERVICE_LOG_LEVEL',
    default: 'info',
    doc: 'Level of the JSON logs on standard output: fatal, error, warn, info, debug, trace or silent.',
    parse: oneOf(LOG_LEVELS),
  }),
  databaseUrl: setting({
    env: 'SERVICE_DATABASE_URL',
    secret: true,
    doc: 'PostgreSQL connection URL (`postgres://user@host:5432/db`). Unset: embedded PGlite under SERVICE_DATA_DIR.',
    parse: parsePostgresUrl,
  }),
  // The link's limits: a request that needs the database answers 503 within about 4 s of the link failing
  // (docs/decisions.md, "Database link limits"). PostgreSQL only; migrations run without the two statement limits.
  databaseConnectTimeoutMs: setting({
    env: 'SERVICE_DATABASE_CONNECT_TIMEOUT_MS',
    default: '3000',
    doc: 'Time limit for opening a connection to PostgreSQL (TCP and start-up); past it the request answers 503 `database_unavailable`.',
    parse: integerBetween(100, 60_000),
  }),
  databasePoolMax: setting({
    env: 'SERVICE_DATABASE_POOL_MAX',
    default: '10',
    doc: "Most connections of the instance's PostgreSQL pool. Each instance also holds one listening session (and one more while it migrates): keep instances × (this + 2) under the server's `max_connections` or the pooler's limit.",
    parse: integerBetween(1, 1000),
  }),
  databaseAcquireTimeoutMs: setting({
    env: 'SERVICE_DATABASE_ACQUIRE_TIMEOUT_MS',
    default: '4000',
    doc: "Time limit for a request to get one of the pool's connections (SERVICE_DATABASE_POOL_MAX; waiting for a free one or opening one); past it 503 `database_unavailable`.",
    parse: integerBetween(100, 60_000),
  }),
  databaseQueryTimeoutMs: setting({
    env: 'SERVICE_DATABASE_QUERY_TIMEOUT_MS',
    default: '4000',
    doc: "Client-side limit on waiting for a statement's answer (a partitioned link sends none); past it the connection is discarded and the request answers 503 `database_unavailable`. `0`: no limit.",
    parse: integerBetween(0, 3_600_000),
  }),
  databaseStatementTimeoutMs: setting({
    env: 'SERVICE_DATABASE_STATEMENT_TIMEOUT_MS',
    default: '3500',
    doc: "PostgreSQL `statement_timeout` of the daemon's sessions: the server cancels a statement running longer (503 `database_unavailable`), keeping the connection. Below the query timeout so a slow statement is cancelled before its connection is discarded. `0`: the server's setting.",
    parse: integerBetween(0, 3_600_000),
  }),
  databaseIdleInTransactionTimeoutMs: setting({
    env: 'SERVICE_DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS',
    default: '10000',
    doc: "PostgreSQL `idle_in_transaction_session_timeout` of the daemon's sessions: the server ends a session whose transaction waits this long for its client (one lost mid-transaction), releasing its locks. `0`: the server's setting.",
    parse: integerBetween(0, 3_600_000),
  }),
  databaseKeepaliveDelayMs: setting({
    env: 'SERVICE_DATABASE_KEEPALIVE_DELAY_MS',
    default: '10000',
    doc: 'TCP keepalive on the connections to PostgreSQL: idle time before the first probe, so a pooled connection whose peer vanished is found dead (and replaced) instead of being handed to a request.',
    parse: integerBetween(1000, 3_600_000),
  }),
  dataDir: setting({
    env: 'SERVICE_DATA_DIR',
    default: '.data',
    doc: 'Directory for local state: the embedded database (`pglite/`) and local file repositories (`files/`: files, flow attachments and, by default, run artifacts). Several daemons of one deployment need `files/` on a shared file system, or S3 default repositories. Relative paths resolve against the working directory.',
    parse: (raw: string) => resolve(nonEmpty(raw)),
  }),
  maxBodyBytes: setting({
    env: 'SERVICE_MAX_BODY_BYTES',
    default: '1048576',
    doc: 'Largest JSON request body accepted, in bytes; larger bodies answer 413 `payload_too_large`.',
    parse: integerBetween(1, 64 * 1024 * 1024),
  }),
  // Run artifacts (docs/artifacts.md): where their bytes go and how large they may grow.
  artifactStore: setting({
    env: 'SERVICE_ARTIFACT_STORE',
    default: 'repository',
    doc: "Where new run artifacts' bytes are kept: `repository` (the run's organization's default file repository, where its files and flow attachments go, made local when it has none), `file` (under `<SERVICE_DATA_DIR>/artifacts/`) or `database` (1 MiB bytea chunks in PostgreSQL, for several daemons with neither S3 nor a shared data directory). Each artifact keeps the store it was written to.",
    parse: oneOf(['repository', 'file', 'database'] as const),
  }),
  artifactMaxBytes: setting({
    env: 'SERVICE_ARTIFACT_MAX_BYTES',
    default: '1073741824',
    doc: 'Largest run artifact, in bytes (1 GiB by default); a larger upload answers 413 `artifact_too_large` and stores nothing.',
    parse: integerBetween(1, 2 ** 50),
  }),
  artifactRunMaxBytes: setting({
    env: 'SERVICE_ARTIFACT_RUN_MAX_BYTES',
    default: '5368709120',
    doc: 'Most bytes of artifacts one run may hold, all together (5 GiB by default); an upload that would pass it answers 413 `run_artifacts_too_large` and stores nothing.',
    parse: integerBetween(1, 2 ** 52),
  }),
  secretsEncryptionKey: setting({
    env: 'SERVICE_SECRETS_ENCRYPTION_KEY',
    secret: true,
    doc: 'Key of the built-in secret backend (AES-256-GCM): 64 hex digits or base64 of 32 bytes. Unset outside production: generated once into `<SERVICE_DATA_DIR>/secrets.key`. A key that does not match the stored values stops start-up.',
    parse: parseKey256,
  }),
  inventoryMaxRunTargets: setting({
    env: 'SERVICE_INVENTORY_MAX_RUN_TARGETS',
    default: '10000',
    doc: 'Most device targets one run may name (all roles together); a larger request answers 422 before any lookup.',
    parse: integerBetween(1, 1_000_000),
  }),
  // The claim's lease (docs/workers.md): a worker renews it with each heartbeat, sent every third of it.
  runLeaseSeconds: setting({
    env: 'SERVICE_RUN_LEASE_SECONDS',
    default: '30',
    doc: "How long a worker's claim on a run lasts without a heartbeat renewing it; workers heartbeat every third of it. An expired lease is reaped: the run is requeued if no step started, else failed with `worker_lost`.",
    parse: integerBetween(2, 3600),
  }),
  // The reaper became a job of the maintenance pass (docs/maintenance.md); its setting stays, as the
  // pass's interval when SERVICE_MAINTENANCE_INTERVAL_SECONDS is unset, so deployments that set it keep it.
  runReaperIntervalSeconds: setting({
    env: 'SERVICE_RUN_REAPER_INTERVAL_SECONDS',
    default: '5',
    doc: 'Former name of SERVICE_MAINTENANCE_INTERVAL_SECONDS, still honoured: the interval of the maintenance pass, which reaps expired run leases, when that setting is unset.',
    parse: integerBetween(1, 3600),
  }),
  // An approval gate that names no timeout stays open this long (docs/approvals.md); 0 never expires.
  approvalDefaultTimeoutSeconds: setting({
    env: 'SERVICE_APPROVAL_DEFAULT_TIMEOUT_SECONDS',
    default: '86400',
    doc: "How long an approval stays pending when its step's gate names no `timeout_seconds` (0: never expires); past it the approval expires and does what the gate's `timeout_action` says.",
    parse: integerBetween(0, 30 * 24 * 3600),
  }),
  maintenanceIntervalSeconds: setting({
    env: 'SERVICE_MAINTENANCE_INTERVAL_SECONDS',
    doc: "Seconds between the maintenance passes of each instance's timer (reaping expired run leases, expiring tickets, retention: docs/maintenance.md); one instance runs a pass at a time, behind an advisory lock. Unset: SERVICE_RUN_REAPER_INTERVAL_SECONDS (default 5).",
    parse: integerBetween(1, 3600),
  }),
  maintenanceTimerEnabled: setting({
    env: 'SERVICE_MAINTENANCE_TIMER_ENABLED',
    default: 'true',
    doc: "Run the maintenance pass on this instance's own timer. `false`: only `POST /internal/maintenance/tick` runs it (an external scheduler must call it, or expired leases are never reaped).",
    parse: parseBoolean,
  }),
  maintenanceHistoryDays: setting({
    env: 'SERVICE_MAINTENANCE_HISTORY_DAYS',
    default: '1',
    doc: "Days a maintenance job's runs are kept in `maintenance_job_runs` (each job's last run and last success are kept for good in `maintenance_jobs`).",
    parse: integerBetween(1, 3650),
  }),
  auditRetentionDays: setting({
    env: 'SERVICE_AUDIT_RETENTION_DAYS',
    default: '0',
    doc: 'Audit entries older than this many days are deleted by the maintenance pass. `0`: kept for good (the spec sets no retention; `POST /audit-logs/cleanup` prunes on demand).',
    parse: integerBetween(0, 3650),
  }),
  webhookDeliveryRetentionDays: setting({
    env: 'SERVICE_WEBHOOK_DELIVERY_RETENTION_DAYS',
    default: '0',
    doc: "Webhook delivery records older than this many days are deleted by the maintenance pass, and with them their idempotency keys (a key may then be accepted again). `0`: kept for good (the spec's retention period is not shown).",
    parse: integerBetween(0, 3650),
  }),
  schedulerEnabled: setting({
    env: 'SERVICE_SCHEDULER_ENABLED',
    default: 'true',
    doc: "Whether this instance runs the embedded scheduler loop that fires due schedules. Every instance may run it (a fire is gated in its run's statement, so racing instances make one run); turn it off where an external scheduler drives `POST /internal/schedules/{schedule_id}/trigger`.",
    parse: parseBoolean,
  }),
  schedulerIntervalMs: setting({
    env: 'SERVICE_SCHEDULER_INTERVAL_MS',
    default: '1000',
    doc: 'The longest the embedded scheduler sleeps between looks for due schedules; it wakes earlier for the next fire time it knows of.',
    parse: integerBetween(10, 3_600_000),
  }),
  schedulerMisfireGraceSeconds: setting({
    env: 'SERVICE_SCHEDULER_MISFIRE_GRACE_SECONDS',
    default: '60',
    doc: "How late a fire time may be fired and still count as on time; an older one was missed (no scheduler ran) and is handled by the schedule's misfire policy.",
    parse: integerBetween(1, 86_400),
  }),
  schedulerCatchUpMax: setting({
    env: 'SERVICE_SCHEDULER_CATCH_UP_MAX',
    default: '20',
    doc: 'Misfire policy `all`: at most this many missed fire times of one schedule are run on catch-up (the newest); older ones are skipped.',
    parse: integerBetween(1, 1000),
  }),
  webhookGlobalIngressPerMinute: setting({
    env: 'SERVICE_WEBHOOK_GLOBAL_INGRESS_PER_MINUTE',
    default: '6000',
    doc: "Webhook triggers this instance accepts per minute across all endpoints, charged before any database query (the spec's `webhook_global_ingress_per_minute`).",
    parse: integerBetween(1, 100_000_000),
  }),
  webhookIngressLimitMultiplier: setting({
    env: 'SERVICE_WEBHOOK_INGRESS_LIMIT_MULTIPLIER',
    default: '10',
    doc: "Per-endpoint ingress limit as a multiple of the endpoint's `rate_limit_per_minute`, charged before the body is read (`webhook_ingress_limit_multiplier`).",
    parse: integerBetween(1, 10_000),
  }),
  webhookMaxBodyBytes: setting({
    env: 'SERVICE_WEBHOOK_MAX_BODY_BYTES',
    default: '262144',
    doc: 'Largest webhook trigger body accepted, in bytes; larger bodies answer 413 (journaled, never read further).',
    parse: integerBetween(1, 64 * 1024 * 1024),
  }),
  shutdownGraceSeconds: setting({
    env: 'SERVICE_SHUTDOWN_GRACE_SECONDS',
    default: '10',
    doc: 'On SIGTERM/SIGINT, how long in-flight requests may take to finish before their connections are cut.',
    parse: integerBetween(0, 3600),
  }),
  devIdpPort: setting({
    env: 'SERVICE_DEV_IDP_PORT',
    default: '8081',
    doc: '`svcd dev` only: port of the embedded OpenID provider on 127.0.0.1 (used when SERVICE_IDP_ISSUER is unset).',
    parse: integerBetween(0, 65535),
  }),
  idpIssuer: setting({
    env: 'SERVICE_IDP_ISSUER',
    doc: 'Issuer (realm URL) of the identity provider as the API reaches it; keys are fetched from here. Required unless authentication is disabled, and always in production.',
    parse: parseHttpUrl,
  }),
  idpPublicIssuer: setting({
    env: 'SERVICE_IDP_PUBLIC_ISSUER',
    doc: 'Issuer as browsers see it, when it differs from SERVICE_IDP_ISSUER; tokens from either validate.',
    parse: parseHttpUrl,
  }),
  idpAudience: setting({
    env: 'SERVICE_IDP_AUDIENCE',
    default: 'service-api',
    doc: 'Audience every access token must include.',
    parse: nonEmpty,
  }),
  idpUiClientId: setting({
    env: 'SERVICE_IDP_UI_CLIENT_ID',
    default: 'service-ui',
    doc: 'Client id of the browser app (authorization code + PKCE), published by `GET /auth/config`.',
    parse: nonEmpty,
  }),
  idpCliClientId: setting({
    env: 'SERVICE_IDP_CLI_CLIENT_ID',
    default: 'svc-cli',
    doc: 'Client id of the `svc` CLI (device grant, PKCE on a loopback redirect), published by `GET /auth/config`.',
    parse: nonEmpty,
  }),
  idpJwksCacheTtl: setting({
    env: 'SERVICE_IDP_JWKS_CACHE_TTL',
    default: '3600',
    doc: 'Seconds the identity provider key set is cached.',
    parse: integerBetween(1, 7 * 24 * 3600),
  }),
  idpJwksMinRefreshSeconds: setting({
    env: 'SERVICE_IDP_JWKS_MIN_REFRESH_SECONDS',
    default: '10',
    doc: 'A token with an unknown key id refetches the key set (key rotation), at most once per this many seconds.',
    parse: integerBetween(0, 3600),
  }),
  tokenCacheSize: setting({
    env: 'SERVICE_TOKEN_CACHE_SIZE',
    default: '10000',
    doc: 'How many verified access tokens are remembered (by digest, until their expiry) so a repeated token skips signature verification; 0 verifies every request.',
    parse: integerBetween(0, 1_000_000),
  }),
  idpHttpTimeoutMs: setting({
    env: 'SERVICE_IDP_HTTP_TIMEOUT_MS',
    default: '5000',
    doc: 'Time limit for each request to the identity provider (discovery, keys); past it the request answers 503.',
    parse: integerBetween(100, 60_000),
  }),
  authDisabled: setting({
    env: 'SERVICE_AUTH_DISABLED',
    default: 'false',
    doc: 'Development opt-out: every request gets the mock admin principal. Refused in production.',
    parse: parseBoolean,
  }),
  internalApiToken: setting({
    env: 'SERVICE_INTERNAL_API_TOKEN',
    secret: true,
    doc: 'Shared secret workers send in `X-Internal-Token` on `internal` routes. Required in production.',
    parse: nonEmpty,
  }),
  internalApiTokenOptional: setting({
    env: 'SERVICE_INTERNAL_API_TOKEN_OPTIONAL',
    default: 'false',
    doc: 'Development only: with no internal token configured, let `internal` routes through unchecked.',
    parse: parseBoolean,
  }),
  trustProxyHeaders: setting({
    env: 'SERVICE_TRUST_PROXY_HEADERS',
    default: 'false',
    doc: 'Take the client address from the first `X-Forwarded-For` hop instead of the socket peer. Set only behind a proxy that overwrites that header.',
    parse: parseBoolean,
  }),
  checkResponses: setting({
    env: 'SERVICE_CHECK_RESPONSES',
    default: 'false',
    doc: "Check every answer of a built route against the status and schema it declares, answering 500 when it does not match. For development and tests: keeps the OpenAPI document and the CLI's types, both made from those schemas, true. Costs a JSON round trip per answer.",
    parse: parseBoolean,
  }),
  permissionRefreshSeconds: setting({
    env: 'SERVICE_PERMISSION_REFRESH_SECONDS',
    default: '30',
    doc: 'Backstop reload of permission overrides and of the IdP mapping index from the database, and the lifetime of a cached organization, organization role, and of the cached endpoints, signing secrets and flows of the run-starting paths; changes normally arrive at once by LISTEN/NOTIFY.',
    parse: integerBetween(1, 30),
  }),
  ticketTtlSeconds: setting({
    env: 'SERVICE_TICKET_TTL_SECONDS',
    default: '300',
    doc: "Lifetime of a stream ticket (the spec's TICKET_TTL_SECONDS).",
    parse: integerBetween(1, 3600),
  }),
  streamKeepaliveSeconds: setting({
    env: 'SERVICE_STREAM_KEEPALIVE_SECONDS',
    default: '15',
    doc: 'Seconds between the `: keepalive` comments of a live run event stream, so proxies keep a quiet stream open.',
    parse: integerBetween(1, 300),
  }),
  streamPollSeconds: setting({
    env: 'SERVICE_STREAM_POLL_SECONDS',
    default: '2',
    doc: 'Seconds between reads of every run that has live streams on this instance, covering lost notifications; new events normally arrive at once by LISTEN/NOTIFY.',
    parse: integerBetween(1, 60),
  }),
  monitorMaxSamples: setting({
    env: 'SERVICE_MONITOR_MAX_SAMPLES',
    default: '100000',
    doc: 'The most samples one run monitor may hold; a batch that would take it past this is refused whole (413 `monitor_sample_limit`).',
    parse: integerBetween(1, 9_999_999),
  }),
  monitorMaxPerRun: setting({
    env: 'SERVICE_MONITOR_MAX_PER_RUN',
    default: '1000',
    doc: 'The most monitors one run may open; opening one more is refused (413 `monitor_run_limit`). A retried open of a key the run has is still answered.',
    parse: integerBetween(1, 100_000),
  }),
  // The outbound guard (src/shared/net/outbound-http.ts): requests to addresses users configure.
  outboundAllowedNetworks: setting({
    env: 'SERVICE_OUTBOUND_ALLOWED_NETWORKS',
    default: '',
    doc: 'Comma-separated CIDR blocks that requests to user-configured targets (notification webhooks, inventory providers, file imports, upstream registries, git remotes) may reach although they are not public: loopback, private, link-local, carrier-grade NAT and reserved addresses are refused unless listed here. Empty: public addresses only.',
    parse: parseNetworkList,
  }),
  outboundTimeoutMs: setting({
    env: 'SERVICE_OUTBOUND_TIMEOUT_MS',
    default: '10000',
    doc: 'Time limit of one request to a user-configured target, from connecting to the end of its answer, unless the caller sets its own.',
    parse: integerBetween(100, 600_000),
  }),
  orgAutoJoin: setting({
    env: 'SERVICE_ORG_AUTO_JOIN',
    default: 'true',
    doc: 'A new user with no membership joins the platform default organization.',
    parse: parseBoolean,
  }),
  orgIdpSync: setting({
    env: 'SERVICE_ORG_IDP_SYNC',
    default: 'false',
    doc: 'Derive organization memberships from the group claim at login, through the IdP mappings. `svcd dev` with its embedded provider: `true` unless set.',
    parse: parseBoolean,
  }),
  orgIdpGroupClaim: setting({
    env: 'SERVICE_ORG_IDP_GROUP_CLAIM',
    default: 'groups',
    doc: 'Name of the token claim holding group values for IdP mapping.',
    parse: nonEmpty,
  }),
  orgIdpSyncAuthoritative: setting({
    env: 'SERVICE_ORG_IDP_SYNC_AUTHORITATIVE',
    default: 'true',
    doc: 'Sync removes `idp` memberships the claims no longer justify; `false` only adds and upgrades.',
    parse: parseBoolean,
  }),
  // Git repositories and flow git sync (docs/git.md).
  gitTimeoutSeconds: setting({
    env: 'SERVICE_GIT_TIMEOUT_SECONDS',
    default: '60',
    doc: 'Time limit of one `git` command (fetch, push, ls-remote); past it the command is killed and the request answers 502 `git_remote_failed` (`reason: timeout`).',
    parse: integerBetween(1, 3600),
  }),
  gitAllowFileUrls: setting({
    env: 'SERVICE_GIT_ALLOW_FILE_URLS',
    default: 'false',
    doc: "Accept `file://` repository URLs (tests and local trials only): otherwise a local path is refused with 422 `git_url_refused`, since it would read the daemon host's disk.",
    parse: parseBoolean,
  }),
  idpAdminUrl: setting({
    env: 'IDP_URL',
    doc: "Base URL of the identity provider's admin API, for syncing users from it.",
    parse: parseHttpUrl,
  }),
  idpAdminRealm: setting({
    env: 'IDP_REALM',
    doc: 'Realm the user sync reads.',
    parse: nonEmpty,
  }),
  idpAdminClientId: setting({
    env: 'IDP_CLIENT_ID',
    doc: 'Admin client id used by the user sync.',
    parse: nonEmpty,
  }),
  idpAdminClientSecret: setting({
    env: 'IDP_CLIENT_SECRET',
    secret: true,
    doc: 'Secret of the admin client used by the user sync.',
    parse: nonEmpty,
  }),
  // Inventory providers (docs/inventory-providers.md): retries of a provider's requests, the sync lease.
  inventoryHttpRetries: setting({
    env: 'SERVICE_INVENTORY_HTTP_RETRIES',
    default: '3',
    doc: "Further attempts of an inventory provider's request after a 5xx, a 429, a timeout or a failed connection (exponential backoff; Retry-After honoured).",
    parse: integerBetween(0, 10),
  }),
  inventoryHttpRetryBaseMs: setting({
    env: 'SERVICE_INVENTORY_HTTP_RETRY_BASE_MS',
    default: '500',
    doc: "First backoff of an inventory provider's retried request, in milliseconds; doubled each attempt, with jitter.",
    parse: integerBetween(0, 60_000),
  }),
  inventoryHttpRetryMaxWaitMs: setting({
    env: 'SERVICE_INVENTORY_HTTP_RETRY_MAX_WAIT_MS',
    default: '30000',
    doc: 'Longest wait before a retry of an inventory provider request, a Retry-After included, in milliseconds.',
    parse: integerBetween(0, 600_000),
  }),
  inventorySyncLeaseSeconds: setting({
    env: 'SERVICE_INVENTORY_SYNC_LEASE_SECONDS',
    default: '300',
    doc: 'A running inventory sync that has written no page for this long is taken for dead (its instance stopped): the next sync of the provider fails it and starts.',
    parse: integerBetween(10, 86_400),
  }),
  // notifications (issue 24)
  notificationSenderEnabled: setting({
    env: 'SERVICE_NOTIFICATION_SENDER_ENABLED',
    default: 'true',
    doc: "Run this instance's notification sender loop, woken by each new outbox message. Every instance may run one (messages are claimed with SKIP LOCKED); with it off, the maintenance job `notifications.deliver_due` still sends on each maintenance pass.",
    parse: parseBoolean,
  }),
  notificationMaxAttempts: setting({
    env: 'SERVICE_NOTIFICATION_MAX_ATTEMPTS',
    default: '8',
    doc: 'Attempts to send one notification before a transient failure (5xx, timeout, SMTP 4xx) is given up; a permanent failure (4xx, SMTP 5xx) is given up at once.',
    parse: integerBetween(1, 100),
  }),
  notificationRetryBaseSeconds: setting({
    env: 'SERVICE_NOTIFICATION_RETRY_BASE_SECONDS',
    default: '30',
    doc: 'Wait before the second attempt of a notification; doubled after each failure (exponential backoff, with jitter of up to half the wait).',
    parse: integerBetween(1, 86_400),
  }),
  notificationRetryMaxSeconds: setting({
    env: 'SERVICE_NOTIFICATION_RETRY_MAX_SECONDS',
    default: '3600',
    doc: 'The longest wait between two attempts of a notification.',
    parse: integerBetween(1, 604_800),
  }),
  notificationPollSeconds: setting({
    env: 'SERVICE_NOTIFICATION_POLL_SECONDS',
    default: '30',
    doc: 'The longest the notification sender sleeps without being woken, covering a lost NOTIFY; retries due earlier wake it earlier.',
    parse: integerBetween(1, 3600),
  }),
  notificationRetentionDays: setting({
    env: 'SERVICE_NOTIFICATION_RETENTION_DAYS',
    default: '30',
    doc: 'Outbox messages delivered or given up more than this many days ago are deleted by the maintenance pass, with their attempt records. `0`: kept for good.',
    parse: integerBetween(0, 3650),
  }),
  // Files and file repositories (issue 22, part files; docs/files.md)
  fileMaxBytes: setting({
    env: 'SERVICE_FILE_MAX_BYTES',
    default: '5368709120',
    doc: 'Largest file an upload or import may store, in bytes (5 GiB by default); a larger one answers 413 `file_too_large` and stores nothing.',
    parse: integerBetween(1, 2 ** 50),
  }),
  fileUrlTtlSeconds: setting({
    env: 'SERVICE_FILE_URL_TTL_SECONDS',
    default: '300',
    doc: 'Lifetime of a presigned file download URL (`POST /files/{file_id}/download-url`) unless the request asks for another (at most 7 days).',
    parse: integerBetween(1, 7 * 24 * 3600),
  }),
  fileDeviceUrlTtlSeconds: setting({
    env: 'SERVICE_FILE_DEVICE_URL_TTL_SECONDS',
    default: '3600',
    doc: 'Lifetime of a device download URL (`POST /files/{file_id}/device-download-url`, for upgrades) unless the worker asks for another.',
    parse: integerBetween(1, 7 * 24 * 3600),
  }),
  fileUrlSigningKey: setting({
    env: 'SERVICE_FILE_URL_SIGNING_KEY',
    secret: true,
    doc: 'HMAC-SHA256 key of presigned file URLs: 64 hex digits or base64 of 32 bytes, the same on every daemon of a deployment. Unset: derived (HKDF) from the secrets encryption key, which every daemon of a deployment shares already.',
    parse: parseKey256,
  }),
  deviceDownloadBaseUrl: setting({
    env: 'SERVICE_DEVICE_DOWNLOAD_BASE_URL',
    doc: "The daemon's base URL as network devices reach it (`https://svc.mgmt.example:8443`): device download URLs start with it. Unset: the address the worker called.",
    parse: parseHttpUrl,
  }),
  fileImportTimeoutMs: setting({
    env: 'SERVICE_FILE_IMPORT_TIMEOUT_MS',
    default: '600000',
    doc: 'Longest a file import (`POST .../files/import`) may take to fetch its URL, headers and body together; past it, 502 `import_failed` (`timeout`) and nothing is kept.',
    parse: integerBetween(1000, 24 * 3600 * 1000),
  }),
  // Flow attachments (docs/flow-attachments.md).
  attachmentMaxBytes: setting({
    env: 'SERVICE_ATTACHMENT_MAX_BYTES',
    default: '104857600',
    doc: 'Largest flow attachment, in bytes (100 MiB by default), uploaded alone or inside a bulk upload; a larger one answers 413 `attachment_too_large` and nothing of the upload is kept.',
    parse: integerBetween(1, 2 ** 50),
  }),
  attachmentBulkMaxFiles: setting({
    env: 'SERVICE_ATTACHMENT_BULK_MAX_FILES',
    default: '2000',
    doc: 'Most files one bulk attachment upload (`POST /flows/{flow_id}/attachments/bulk`, a zip) may hold; more answers 413 `attachment_too_large` and nothing is kept.',
    parse: integerBetween(1, 1_000_000),
  }),
  attachmentBulkMaxBytes: setting({
    env: 'SERVICE_ATTACHMENT_BULK_MAX_BYTES',
    default: '536870912',
    doc: 'Largest bulk attachment upload, in bytes (512 MiB by default): both the zip as sent and its files uncompressed; past it, 413 `attachment_too_large` and nothing is kept.',
    parse: integerBetween(1, 2 ** 50),
  }),
  // Binary artifacts (issue 22, part B; docs/binary-artifacts.md)
  binaryArtifactZipMaxBytes: setting({
    env: 'SERVICE_BINARY_ARTIFACT_ZIP_MAX_BYTES',
    default: '21474836480',
    doc: 'Most bytes one bulk download of binary artifacts (`POST /binary-artifacts/bulk-download`) may put in its zip (20 GiB by default); more answers 413 `bulk_download_too_large` before anything is sent.',
    parse: integerBetween(1, 2 ** 50),
  }),
  // Part art (schedule housekeeping).
  scheduleFireRetentionDays: setting({
    env: 'SERVICE_SCHEDULE_FIRE_RETENTION_DAYS',
    default: '30',
    doc: "Schedule fire records (`schedule_fires`, one per fire: the gate that makes each due time fire once) whose due time is older than this many days are deleted by the maintenance pass; each schedule's newest fire is kept. `0`: kept for good.",
    parse: integerBetween(0, 3650),
  }),
  runTokenTtlSeconds: setting({
    env: 'SERVICE_RUN_TOKEN_TTL_SECONDS',
    default: '3600',
    doc: 'Longest life of a run token (state backend, registry) minted for a step; a mint may ask for less. The token dies earlier when its step or run ends.',
    parse: integerBetween(60, 86400),
  }),
  iacStateMaxBytes: setting({
    env: 'SERVICE_IAC_STATE_MAX_BYTES',
    default: '16777216',
    doc: 'Largest IaC state document accepted by a state write or import, in bytes; larger ones answer 413.',
    parse: integerBetween(1024, 1073741824),
  }),
  // registry (issue 26)
  registryUrl: setting({
    env: 'SERVICE_REGISTRY_URL',
    doc: "Internal base URL of the platform image registry's API (`http://registry:5000`): the image routes read namespaces, repositories and tags from it and delete through it. Unset: those routes answer 503 `registry_not_configured`.",
    parse: parseHttpUrl,
  }),
  registryProxySecret: setting({
    env: 'SERVICE_REGISTRY_PROXY_SECRET',
    secret: true,
    doc: "Shared secret the registry's proxy sends in `X-Registry-Proxy-Secret` on `GET /registry/authorize` (nginx `auth_request`). Unset: the route answers 404 to every request.",
    parse: nonEmpty,
  }),
  registryTimeoutMs: setting({
    env: 'SERVICE_REGISTRY_TIMEOUT_MS',
    default: '10000',
    doc: "Time limit for each request the image routes make to the registry's API; past it they answer 503 `registry_unavailable`.",
    parse: integerBetween(1, 600000),
  }),
} as const;
