import { CATALOGUE } from '../../../../shared/catalogue/catalogue.js';
import type { Services } from '../../../services.js';
import type { FlowsModule } from '../../flows/module.js';
import type { ResourceFamily } from '../family.js';
import { DevicesRowsRepo } from '../repos/devices-rows-repo.js';
import { NotificationsRowsRepo } from '../repos/notifications-rows-repo.js';
import { InventoryProvidersRowsRepo } from '../repos/inventory-providers-rows-repo.js';
import { OrganizationsRowsRepo } from '../repos/organizations-rows-repo.js';
import { FlowReferencesRepo } from '../repos/flow-references-repo.js';
import { FlowsRowsRepo } from '../repos/flows-rows-repo.js';
import { SchedulesRowsRepo } from '../repos/schedules-rows-repo.js';
import { PermissionOverridesRepo } from '../repos/permission-overrides-repo.js';
import { SecretsRowsRepo } from '../repos/secrets-rows-repo.js';
import { SitesRowsRepo } from '../repos/sites-rows-repo.js';
import { VariablesRowsRepo } from '../repos/variables-rows-repo.js';
import { WebhooksRowsRepo } from '../repos/webhooks-rows-repo.js';
import { flowsFamily } from './flows.js';
import { permissionActionOverridesFamily } from './permission-action-overrides.js';
import { permissionOverridesFamily } from './permission-overrides.js';
import { schedulesFamily } from './schedules.js';
import { secretsFamily } from './secrets.js';
import { devicesFamily } from './devices.js';
import { fileRepositoriesFamily } from './file-repositories.js';
import { gitRepositoriesFamily } from './git-repositories.js';
import { idpMappingsFamily } from './idp-mappings.js';
import { inventoryProvidersFamily } from './inventory-providers.js';
import { notificationDestinationsFamily } from './notification-destinations.js';
import { notificationSubscriptionsFamily } from './notification-subscriptions.js';
import { organizationsFamily } from './organizations.js';
import { registryCredentialsFamily } from './registry-credentials.js';
import { sitesFamily } from './sites.js';
import { variablesFamily } from './variables.js';
import { webhooksFamily } from './webhooks.js';

/**
 * Every family that works, in apply order. A new family is one line here; `inApplyOrder` puts it after
 * the families it depends on and refuses a dependency that is unknown or circular.
 */
/** What families need of other domains (a flow's commit runs the flows domain's hooks). */
export interface FamilyDeps {
  readonly flows: Pick<FlowsModule, 'commitHooks'>;
}

export function resourceFamilies(services: Services, deps: FamilyDeps): ResourceFamily[] {
  const flowReferences = new FlowReferencesRepo();
  const overrides = { catalogue: CATALOGUE, repo: new PermissionOverridesRepo(), store: services.overrideStore };
  return inApplyOrder([
    permissionActionOverridesFamily(overrides),
    permissionOverridesFamily(overrides),
    variablesFamily(new VariablesRowsRepo()),
    secretsFamily(new SecretsRowsRepo(), services.triggerConfig.invalidate),
    webhooksFamily(new WebhooksRowsRepo(), flowReferences, services.triggerConfig.invalidate),
    sitesFamily(new SitesRowsRepo()),
    devicesFamily(new DevicesRowsRepo()),
    inventoryProvidersFamily(new InventoryProvidersRowsRepo()),
    gitRepositoriesFamily(),
    fileRepositoriesFamily(),
    registryCredentialsFamily(),
    idpMappingsFamily(services.mappingIndex),
    organizationsFamily(new OrganizationsRowsRepo()),
    flowsFamily(new FlowsRowsRepo(), deps.flows.commitHooks),
    schedulesFamily(new SchedulesRowsRepo(), flowReferences),
    notificationDestinationsFamily(new NotificationsRowsRepo()),
    notificationSubscriptionsFamily(new NotificationsRowsRepo(), flowReferences),
  ]);
}

/** Families sorted so each comes after its dependencies (declaration order otherwise kept). */
export function inApplyOrder(families: readonly ResourceFamily[]): ResourceFamily[] {
  const byName = new Map(families.map((f) => [f.name, f]));
  const ordered: ResourceFamily[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (family: ResourceFamily) => {
    if (state.get(family.name) === 'done') return;
    if (state.get(family.name) === 'visiting') throw new TypeError(`resource family ${family.name} depends on itself`);
    state.set(family.name, 'visiting');
    for (const dependency of family.dependsOn) {
      const found = byName.get(dependency);
      if (!found) throw new TypeError(`resource family ${family.name} depends on unknown family ${dependency}`);
      visit(found);
    }
    state.set(family.name, 'done');
    ordered.push(family);
  };
  families.forEach(visit);
  return ordered;
}
