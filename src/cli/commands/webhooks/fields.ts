import { Option, type Command } from 'commander';
import { usageError } from '../../errors.js';
import { collect, flag } from '../shared.js';

/**
 * The endpoint fields create and update share, read from their flags. Ranges, UUIDs, CIDR blocks and
 * names are the daemon's to judge (422 naming the field): the CLI checks only what it must to build
 * the body (numbers are numbers, JSON is JSON).
 */
export interface EndpointFields {
  name?: string;
  description?: string | null;
  enabled?: boolean;
  secret_id?: string;
  auth_mode?: string;
  replay_window_seconds?: number;
  rate_limit_per_minute?: number;
  flow_id?: string;
  flow_version?: number | null;
  allowed_source_ips?: string[] | null;
  payload_mapping_json?: Record<string, unknown>;
}

/** The flags of the fields create and update share, read back by `endpointFields`. */
export function endpointFieldFlags(command: Command): Command {
  return command
    .option('--name <name>', 'label (the endpoint is addressed by its token, not its name)')
    .option('--description <text>', 'description')
    .option('--flow <flow>', 'the flow a trigger starts (id, or its name as svc runs start takes it)')
    .option('--flow-version <n>', 'pin this committed version (default: the newest committed)')
    .option('--secret <secret_id>', 'the secret holding the signing key (hmac_sha256) or the bearer token')
    .option('--rate <per_minute>', 'deliveries accepted per minute (default 60)')
    .option('--replay-window <seconds>', 'how far a signed timestamp may be from now (default 300)')
    .addOption(
      new Option('--allow <cidr>', 'accept triggers only from these addresses or CIDR blocks (repeat, or comma-separate)').argParser(
        collect,
      ),
    )
    .option('--payload-mapping <json>', 'payload_mapping_json, a JSON object (stored, not applied by the trigger)');
}

function wholeNumber(raw: Record<string, unknown>, key: string, name: string): number | undefined {
  const text = flag.string(raw, key);
  if (text === undefined) return undefined;
  if (!/^\d{1,9}$/.test(text)) throw usageError(`${name} must be a whole number, not "${text}"`);
  return Number(text);
}

/** `--allow` repeats, and each may hold a comma-separated list (a CIDR block never has a comma). */
function allowList(raw: Record<string, unknown>): string[] | undefined {
  const entries = flag
    .strings(raw, 'allow')
    .flatMap((value) => value.split(','))
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  return entries.length === 0 ? undefined : entries;
}

function mapping(raw: Record<string, unknown>): Record<string, unknown> | undefined {
  const text = flag.string(raw, 'payloadMapping');
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw usageError(`--payload-mapping is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw usageError('--payload-mapping must be a JSON object');
  return value as Record<string, unknown>;
}

/** The fields given as flags, with the names the API uses; absent flags leave fields out. */
export function endpointFields(raw: Record<string, unknown>): EndpointFields {
  const fields: EndpointFields = {};
  const name = flag.string(raw, 'name');
  if (name !== undefined) fields.name = name;
  // An empty description clears it; flag.string would read "" as absent.
  if (typeof raw.description === 'string') fields.description = raw.description === '' ? null : raw.description;
  const flow = flag.string(raw, 'flow');
  if (flow !== undefined) fields.flow_id = flow;
  const version = wholeNumber(raw, 'flowVersion', '--flow-version');
  if (version !== undefined) fields.flow_version = version;
  const secret = flag.string(raw, 'secret');
  if (secret !== undefined) fields.secret_id = secret;
  const rate = wholeNumber(raw, 'rate', '--rate');
  if (rate !== undefined) fields.rate_limit_per_minute = rate;
  const window = wholeNumber(raw, 'replayWindow', '--replay-window');
  if (window !== undefined) fields.replay_window_seconds = window;
  const allow = allowList(raw);
  if (allow !== undefined) fields.allowed_source_ips = allow;
  const payloadMapping = mapping(raw);
  if (payloadMapping !== undefined) fields.payload_mapping_json = payloadMapping;
  return fields;
}
