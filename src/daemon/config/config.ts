import { SettingError } from './parsers.js';
import { SETTINGS, type SettingDefinition } from './settings.js';

type Settings = typeof SETTINGS;
type ValueOf<S> = S extends { parse: (raw: string) => infer T } ? T : never;
type HasDefault<S> = S extends { default: string } ? true : false;

/** The daemon's configuration: every setting parsed and checked, read once at start-up. */
export type Config = {
  readonly [K in keyof Settings]: HasDefault<Settings[K]> extends true ? ValueOf<Settings[K]> : ValueOf<Settings[K]> | undefined;
} & { readonly isProduction: boolean };

export interface ConfigProblem {
  readonly variable: string;
  readonly message: string;
}

/** Thrown when the environment cannot make a valid configuration; lists every problem, not just the first. */
export class ConfigError extends Error {
  readonly code = 'config.invalid';
  constructor(readonly problems: readonly ConfigProblem[]) {
    super(`invalid configuration:\n${problems.map((p) => `  ${p.variable}: ${p.message}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export function loadConfig(env: Readonly<Record<string, string | undefined>>): Config {
  const problems: ConfigProblem[] = [];
  const values: Record<string, unknown> = {};
  for (const [key, definition] of Object.entries(SETTINGS) as [string, SettingDefinition<unknown>][]) {
    const given = env[definition.env];
    const raw = given === undefined || given === '' ? definition.default : given;
    if (raw === undefined) {
      values[key] = undefined;
      continue;
    }
    try {
      values[key] = definition.parse(raw);
    } catch (error) {
      if (!(error instanceof SettingError)) throw error;
      problems.push({ variable: definition.env, message: definition.secret ? error.message : `${error.message} (got "${given}")` });
    }
  }
  const isProduction = values.environment === 'prod' || values.environment === 'production';
  if (isProduction) problems.push(...productionProblems(values));
  if (problems.length > 0) throw new ConfigError(problems);
  return { ...values, isProduction } as Config;
}

/** The spec's fail-fast rules: production never starts with its security configuration missing. */
function productionProblems(values: Record<string, unknown>): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  if (values.authDisabled === true) {
    problems.push({ variable: 'SERVICE_AUTH_DISABLED', message: 'must not be true in production' });
  }
  if (values.internalApiToken === undefined) {
    problems.push({ variable: 'SERVICE_INTERNAL_API_TOKEN', message: 'is required in production' });
  }
  if (values.idpIssuer === undefined) {
    problems.push({ variable: 'SERVICE_IDP_ISSUER', message: 'is required in production' });
  }
  if (values.internalApiTokenOptional === true) {
    problems.push({ variable: 'SERVICE_INTERNAL_API_TOKEN_OPTIONAL', message: 'must not be true in production' });
  }
  // A generated key file beside the data would be lost or copied with it; production holds the key apart.
  if (values.secretsEncryptionKey === undefined) {
    problems.push({ variable: 'SERVICE_SECRETS_ENCRYPTION_KEY', message: 'is required in production' });
  }
  return problems;
}
