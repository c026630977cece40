import { MASKED_VALUE, type EnvironmentVariable } from '../../../shared/api/environment-variables.js';
import type { Config } from '../../config/config.js';
import { SETTINGS, type SettingDefinition } from '../../config/settings.js';

/**
 * The daemon's effective settings as an administrator reads them: each value written back as the
 * environment would write it (lists comma-separated), secrets masked. Made once: the configuration is
 * read at start-up and never changes while the daemon runs.
 */
export function effectiveSettings(config: Config): EnvironmentVariable[] {
  const values = config as unknown as Readonly<Record<string, unknown>>;
  return (Object.entries(SETTINGS) as [string, SettingDefinition<unknown>][]).map(([key, definition]) => {
    const value = written(values[key]);
    const defaultValue = definition.default === undefined ? undefined : written(definition.parse(definition.default));
    return {
      name: definition.env,
      value: value === undefined ? null : definition.secret ? MASKED_VALUE : value,
      default: definition.default === undefined ? null : definition.secret ? MASKED_VALUE : defaultValue!,
      is_default: value === defaultValue,
      secret: definition.secret === true,
      description: definition.doc,
    };
  });
}

/** A parsed value as text: lists joined by commas, nothing as undefined. */
function written(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) return value.join(',');
  if (Buffer.isBuffer(value)) return value.toString('hex');
  return String(value);
}
