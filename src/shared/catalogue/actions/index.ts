import { systemActions } from './system.js';
import { authActions } from './auth.js';
import { orgActions } from './org.js';
import { internalActions } from './internal.js';
import { runsActions } from './runs.js';
import { inventoryActions } from './inventory.js';
import { flowsActions } from './flows.js';
import { schedulesWebhooksActions } from './schedules-webhooks.js';
import { notificationsActions } from './notifications.js';
import { secretsVariablesStateActions } from './secrets-variables-state.js';
import { filesGitRegistryActions } from './files-git-registry.js';
import { administrationActions } from './administration.js';
import { platformSyncActions } from './platform-sync.js';
import type { ActionDefinition } from '../types.js';

/** Every action of the catalogue, section by section, in catalogue order. */
export const allActions: readonly ActionDefinition[] = [
  ...systemActions,
  ...authActions,
  ...orgActions,
  ...internalActions,
  ...runsActions,
  ...inventoryActions,
  ...flowsActions,
  ...schedulesWebhooksActions,
  ...notificationsActions,
  ...secretsVariablesStateActions,
  ...filesGitRegistryActions,
  ...administrationActions,
  ...platformSyncActions,
];
