import { Command } from 'commander';
import { SVC_VERSION } from '../shared/version.js';
import { ConfigError, loadConfig, type Config } from './config/config.js';
import { startDaemon, type RunningDaemon } from './daemon.js';
import { loadWorkerSettings, WorkerSettingError, type WorkerSettings } from '../worker/settings.js';
import { ReferenceWorker } from '../worker/worker.js';
import { devEnvironment, seedDevOrgMappings, startDevWorker } from './dev-command.js';
import { openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { createLogger } from './logging/logger.js';

/** Exit code for a configuration the daemon refuses (sysexits EX_CONFIG). */
const EXIT_CONFIG = 78;

function configOrExit(): Config {
  try {
    return loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    exitOnConfigError(error);
  }
}

function exitOnConfigError(error: ConfigError): never {
  process.stderr.write(`svcd: ${error.message}\n`);
  process.stderr.write(`${JSON.stringify({ code: error.code, variables: error.problems.map((p) => p.variable) })}\n`);
  process.exit(EXIT_CONFIG);
}

async function serve(): Promise<void> {
  const config = configOrExit();
  const log = createLogger(config.logLevel);
  await stopOnSignals(startDaemon(config, log), log);
}

async function dev(): Promise<void> {
  const config = configOrExit();
  const log = createLogger(config.logLevel);
  await stopOnSignals(startDev(config, log), log);
}

/** `svcd dev`'s parts, started: the embedded provider, the daemon, the in-process worker; stopped worker first. */
async function startDev(given: Config, log: ReturnType<typeof createLogger>): Promise<Stoppable> {
  const dev = await devEnvironment(given, process.env);
  const daemon = await startDaemon(dev.config, log);
  // A convenience of the first start: the daemon serves without it (memberships are then granted by hand).
  const seeded = dev.idp
    ? await seedDevOrgMappings(daemon.services).catch((error: unknown) => {
        log.warn({ err: error }, 'could not seed the IdP mappings of the default organization');
        return undefined;
      })
    : undefined;
  const worker = startDevWorker(daemon.url, dev.config, log, process.env);
  const banner = seeded ? `${dev.banner}\n${seeded}` : dev.banner;
  process.stderr.write(
    `\nsvcd dev: API on ${daemon.url} (docs: ${daemon.url}/docs)\n${banner}\nA worker (${worker.workerId}) runs flows in-process.\n\n`,
  );
  // The worker first: it hands its runs back through the daemon, which must still be up.
  return { stop: async () => (await worker.stop(), await daemon.stop(), await dev.idp?.stop()) };
}

function workerSettingsOrExit(): WorkerSettings {
  try {
    return loadWorkerSettings(process.env);
  } catch (error) {
    if (!(error instanceof WorkerSettingError)) throw error;
    process.stderr.write(`svcd worker: ${error.message}\n`);
    process.stderr.write(`${JSON.stringify({ code: 'config.invalid', variables: error.problems.map((p) => p.variable) })}\n`);
    process.exit(EXIT_CONFIG);
  }
}

/** `svcd worker`: the reference worker alone, speaking to a daemon at SERVICE_SERVER_URL. */
async function worker(): Promise<void> {
  const settings = workerSettingsOrExit();
  const log = createLogger(settings.logLevel);
  const worker = new ReferenceWorker({ ...settings, log });
  worker.start();
  await stopOnSignals(Promise.resolve(worker), log);
}

type Stoppable = Pick<RunningDaemon, 'stop'>;

/**
 * SIGTERM and SIGINT stop what `starting` starts, gracefully; a second signal exits at once. The handlers
 * go in before the start: a signal during start-up, or in the instant after the banner, would otherwise
 * kill the process with whatever it was writing (PGlite's data directory) half done. Such a signal waits
 * for the start to end, then stops what started.
 */
function stopOnSignals(starting: Promise<Stoppable>, log: ReturnType<typeof createLogger>): Promise<Stoppable> {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn({ signal }, 'second signal: exiting at once');
      process.exit(1);
    }
    stopping = true;
    log.info({ signal }, 'shutting down');
    starting
      .then((started) => started.stop())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  return starting;
}

async function migrate(): Promise<void> {
  const config = configOrExit();
  const log = createLogger(config.logLevel);
  const db = await openDatabase(config, log);
  try {
    const ran = await db.withoutStatementLimits(migrateToLatest);
    log.info({ migrations: ran }, ran.length ? `applied ${ran.length} migration(s)` : 'schema already up to date');
  } finally {
    await db.close();
  }
}

const program = new Command('svcd')
  .description('svc daemon: serves the svc HTTP API. Configured by SERVICE_* environment variables (see README).')
  .version(SVC_VERSION);
program.command('serve', { isDefault: true }).description('run migrations, then serve the API').action(serve);
program.command('dev').description('serve with an embedded OpenID provider and seeded users (development only)').action(dev);
program
  .command('worker')
  .description('run the reference worker: claim runs from the daemon at SERVICE_SERVER_URL and execute them')
  .action(worker);
program.command('migrate').description('bring the database schema up to date, then exit').action(migrate);

program.parseAsync(process.argv).catch((error: unknown) => {
  // A configuration found wrong only against the database (the secrets key) exits as a bad environment does.
  if (error instanceof ConfigError) exitOnConfigError(error);
  process.stderr.write(`svcd: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
