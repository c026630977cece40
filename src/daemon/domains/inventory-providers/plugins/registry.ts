import { nautobotPlugin } from './nautobot.js';
import { netboxPlugin } from './netbox.js';
import type { InventoryPlugin } from './plugin.js';
import { staticPlugin } from './static.js';

/** The inventory provider plugins, by type: a provider's `type` names one of them. */
export const INVENTORY_PLUGINS: ReadonlyMap<string, InventoryPlugin> = new Map(
  [netboxPlugin, nautobotPlugin, staticPlugin].map((plugin) => [plugin.type, plugin]),
);
