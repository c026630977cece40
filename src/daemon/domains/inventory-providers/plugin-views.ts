import { z } from 'zod';
import type { PluginList, ProviderTypes } from '../../../shared/api/inventory-providers.js';
import { INVENTORY_PLUGINS } from './plugins/registry.js';

/** The plugins as `GET /inventory/plugins` and `/settings/plugins` answer them, with their configuration's JSON Schema. */
export function pluginList(): PluginList {
  return {
    items: [...INVENTORY_PLUGINS.values()].map((plugin) => ({
      kind: 'inventory_provider' as const,
      type: plugin.type,
      label: plugin.label,
      description: plugin.description,
      incremental: plugin.incremental,
      object_types: [...plugin.objectTypes],
      credential: plugin.credential,
      config_schema: z.toJSONSchema(plugin.configSchema, { io: 'input' }) as Record<string, unknown>,
    })),
  };
}

export function providerTypes(): ProviderTypes {
  return {
    items: [...INVENTORY_PLUGINS.values()].map((plugin) => ({
      type: plugin.type,
      label: plugin.label,
      incremental: plugin.incremental,
      object_types: [...plugin.objectTypes],
    })),
  };
}
