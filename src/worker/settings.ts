import { hostname } from 'node:os';
import { workerId as workerIdSchema } from '../shared/api/workers.js';
import { readNetworkList } from '../shared/net/network-matcher.js';

/**
 * The settings of `svcd worker` (and of the worker `svcd dev` starts in-process): a small set of its own,
 * so a worker needs neither the daemon's database nor its identity-provider settings. Each entry carries
 * its default and meaning here, where it is defined; the README's configuration table lists them too
 * (test/worker-settings.test.ts keeps the two equal). `SERVICE_INTERNAL_API_TOKEN` and `SERVICE_LOG_LEVEL`
 * are the daemon's variables of the same name: one value configures both ends.
 */
export interface WorkerSettingDefinition<T> {
  readonly env: string;
  /** The default as it would be written in the environment; absent means unset (or computed, see `doc`). */
  readonly default?: string;
  readonly doc: string;
  readonly secret?: boolean;
  readonly parse: (raw: string) => T;
}

export class WorkerSettingError extends Error {
  constructor(readonly problems: readonly { variable: string; message: string }[]) {
    super(`invalid worker configuration:\n${problems.map((p) => `  ${p.variable}: ${p.message}`).join('\n')}`);
    this.name = 'WorkerSettingError';
  }
}

class BadValue extends Error {}

function setting<const D extends WorkerSettingDefinition<unknown>>(definition: D): D {
  return definition;
}

const nonEmpty = (raw: string): string => {
  const value = raw.trim();
  if (value === '') throw new BadValue('must not be empty');
  return value;
};

const integerBetween =
  (min: number, max: number) =>
  (raw: string): number => {
    const value = Number(raw.trim());
    if (!/^\d+$/.test(raw.trim()) || value < min || value > max) throw new BadValue(`expected an integer between ${min} and ${max}`);
    return value;
  };

const httpUrl = (raw: string): string => {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new BadValue('expected an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new BadValue('expected an absolute http(s) URL');
  return raw.trim().replace(/\/+$/, '');
};

const workerIdValue = (raw: string): string => {
  const parsed = workerIdSchema.safeParse(raw.trim());
  if (!parsed.success) throw new BadValue('letters, digits, . _ : - (1-255, starting with a letter or digit)');
  return parsed.data;
};

/** Comma-separated CIDR blocks or addresses, as the daemon reads the same variable; empty gives none. */
const networkList = (raw: string): string[] => {
  const list = readNetworkList(raw);
  if ('message' in list) throw new BadValue(list.message);
  return list.entries;
};

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const logLevel = (raw: string): (typeof LOG_LEVELS)[number] => {
  const value = raw.trim() as (typeof LOG_LEVELS)[number];
  if (!LOG_LEVELS.includes(value)) throw new BadValue(`expected one of ${LOG_LEVELS.join(', ')}`);
  return value;
};

export const WORKER_SETTINGS = {
  serverUrl: setting({
    env: 'SERVICE_SERVER_URL',
    default: 'http://127.0.0.1:8080',
    doc: '`svcd worker`: base URL of the daemon the worker heartbeats to and reports through (its internal routes).',
    parse: httpUrl,
  }),
  internalApiToken: setting({
    env: 'SERVICE_INTERNAL_API_TOKEN',
    secret: true,
    doc: 'The shared secret sent as `X-Internal-Token`; unset sends none (a daemon with SERVICE_INTERNAL_API_TOKEN_OPTIONAL).',
    parse: nonEmpty,
  }),
  workerId: setting({
    env: 'SERVICE_WORKER_ID',
    doc: "`svcd worker`: the worker's stable name (heartbeat `worker_id`, `X-Worker-Id`). Unset: `<hostname>-<pid>`.",
    parse: workerIdValue,
  }),
  capacity: setting({
    env: 'SERVICE_WORKER_CAPACITY',
    default: '4',
    doc: "`svcd worker`: how many runs the worker executes at once (the heartbeat's free slots are this minus those it holds).",
    parse: integerBetween(1, 100),
  }),
  shutdownGraceSeconds: setting({
    env: 'SERVICE_WORKER_SHUTDOWN_GRACE_SECONDS',
    default: '25',
    doc: '`svcd worker`: on SIGTERM/SIGINT, how long running runs may take to finish; then the rest are handed back (requeued if no step started, else failed `worker_lost`).',
    parse: integerBetween(0, 3600),
  }),
  // The daemon's variables of the same name: a step that reaches a user-configured target (`flow.notify`)
  // goes through the same outbound guard, with the same allow-list, as the daemon's own sends.
  outboundAllowedNetworks: setting({
    env: 'SERVICE_OUTBOUND_ALLOWED_NETWORKS',
    default: '',
    doc: 'CIDR blocks user-configured targets may be in although not public (daemon and worker: `flow.notify`).',
    parse: networkList,
  }),
  outboundTimeoutMs: setting({
    env: 'SERVICE_OUTBOUND_TIMEOUT_MS',
    default: '10000',
    doc: 'Time limit of one request to a user-configured target (daemon and worker).',
    parse: integerBetween(100, 600_000),
  }),
  logLevel: setting({
    env: 'SERVICE_LOG_LEVEL',
    default: 'info',
    doc: 'Level of the JSON logs on standard output.',
    parse: logLevel,
  }),
} as const;

export interface WorkerSettings {
  readonly serverUrl: string;
  readonly internalApiToken: string | undefined;
  readonly workerId: string;
  readonly capacity: number;
  readonly shutdownGraceSeconds: number;
  readonly outboundAllowedNetworks: readonly string[];
  readonly outboundTimeoutMs: number;
  readonly logLevel: (typeof LOG_LEVELS)[number];
}

/** `<hostname>-<pid>`, with what a worker id may not hold replaced, so any host name gives a valid id. */
export function defaultWorkerId(host = hostname(), pid = process.pid): string {
  const cleaned = host.replace(/[^A-Za-z0-9._:-]/g, '-').replace(/^[^A-Za-z0-9]+/, '');
  return `${cleaned === '' ? 'worker' : cleaned}-${pid}`.slice(0, 255);
}

export function loadWorkerSettings(env: Readonly<Record<string, string | undefined>>): WorkerSettings {
  const problems: { variable: string; message: string }[] = [];
  const values: Record<string, unknown> = {};
  for (const [key, definition] of Object.entries(WORKER_SETTINGS) as [string, WorkerSettingDefinition<unknown>][]) {
    const given = env[definition.env];
    const raw = given === undefined || given === '' ? definition.default : given;
    if (raw === undefined) continue;
    try {
      values[key] = definition.parse(raw);
    } catch (error) {
      if (!(error instanceof BadValue)) throw error;
      problems.push({ variable: definition.env, message: definition.secret ? error.message : `${error.message} (got "${given}")` });
    }
  }
  if (problems.length > 0) throw new WorkerSettingError(problems);
  return { ...values, workerId: (values.workerId as string | undefined) ?? defaultWorkerId() } as WorkerSettings;
}
