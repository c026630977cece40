import { problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import { parseSecretReference } from '../../../shared/secrets/reference.js';
import { INVENTORY_PLUGINS } from './plugins/registry.js';
import type { InventoryPlugin } from './plugins/plugin.js';

/** The plugin of a type, or 422 `unknown_provider_type` listing those there are. */
export function pluginOf(type: string): InventoryPlugin {
  const plugin = INVENTORY_PLUGINS.get(type);
  if (!plugin) {
    const types = [...INVENTORY_PLUGINS.keys()];
    throw problem('unknown_provider_type', `No inventory provider plugin has the type "${type}" (${types.join(', ')}).`, { types });
  }
  return plugin;
}

/**
 * A provider's configuration checked against its plugin: the schema (defaults filled in), the URL rule,
 * the plugin's own checks (a YAML document's syntax with line and column). Answers the stored form.
 */
export function checkConfig(plugin: InventoryPlugin, config: Record<string, unknown>): Record<string, unknown> {
  if (typeof config.url === 'string') checkUrl(config.url);
  const parsed = plugin.configSchema.safeParse(config);
  if (!parsed.success) {
    const errors = parsed.error.issues.map((issue) => ({ path: ['config', ...issue.path.map(String)].join('.'), message: issue.message }));
    throw problem(
      'invalid_provider_config',
      `The ${plugin.type} configuration is not valid: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`,
      {
        errors,
      },
    );
  }
  const errors = plugin.check?.(parsed.data) ?? [];
  if (errors.length > 0) {
    throw problem(
      'invalid_provider_config',
      `The ${plugin.type} configuration is not valid: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`,
      {
        errors,
      },
    );
  }
  return parsed.data;
}

/** An absolute http(s) URL with a host, no credentials (they belong in `credential_ref`), no query or fragment. */
function checkUrl(url: string): void {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  const why = !parsed
    ? 'is not an absolute URL'
    : parsed.protocol !== 'http:' && parsed.protocol !== 'https:'
      ? 'must be http or https'
      : parsed.username || parsed.password
        ? 'must not hold credentials (use credential_ref)'
        : parsed.search || parsed.hash
          ? 'must have no query or fragment'
          : undefined;
  if (why) throw problem('invalid_provider_url', `config.url ${why}.`, { field: 'config.url' });
}

/** A credential reference's spelling, and whether the plugin needs one at all. */
export function checkCredentialRef(plugin: InventoryPlugin, reference: string | null): void {
  if (reference === null) {
    if (plugin.credential === 'required') {
      throw problems.validation([{ path: 'credential_ref', message: `a ${plugin.type} provider needs a credential (a secret reference)` }]);
    }
    return;
  }
  if (plugin.credential === 'none')
    throw problems.validation([{ path: 'credential_ref', message: `a ${plugin.type} provider takes no credential` }]);
  if (!parseSecretReference(reference)) {
    throw problems.validation([
      {
        path: 'credential_ref',
        message: "must be a secret reference: {{ secret('<name>') }} or <scheme>://orgs/<org_slug>/secrets/<path>",
      },
    ]);
  }
}
