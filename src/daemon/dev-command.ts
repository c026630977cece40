import { randomBytes } from 'node:crypto';
import { loadWorkerSettings } from '../worker/settings.js';
import { ReferenceWorker } from '../worker/worker.js';
import type { WorkerLog } from '../worker/log.js';
import type { Config } from './config/config.js';
import {
  DEV_AUTOMATION_CLIENT_SECRET,
  DEV_CLIENTS,
  DEV_GROUP_CLAIM,
  DEV_ORG_MAPPINGS,
  DEV_USERS,
  startDevIdp,
  type DevIdp,
} from './dev-idp/index.js';
import { idpMappingsServiceOf } from './domains/idp-mappings/idp-mappings-service.js';
import type { Services } from './services.js';

/**
 * `svcd dev`: the daemon with authentication on, beside an embedded OpenID provider with seeded users,
 * so a newcomer can sign in without installing an identity provider. Never in production. With the
 * embedded provider, memberships follow the group claim (SERVICE_ORG_IDP_SYNC) unless `env` sets it:
 * `seedDevOrgMappings` gives the groups their roles.
 */
export async function devEnvironment(
  given: Config,
  env: Readonly<Record<string, string | undefined>>,
): Promise<{ config: Config; idp?: DevIdp; banner: string }> {
  if (given.isProduction) throw new Error('svcd dev is for development; SERVICE_ENVIRONMENT is production');
  // The in-process worker speaks to the internal routes like any other: they need a token, made for this session when unset.
  const config: Config = { ...given, internalApiToken: given.internalApiToken ?? randomBytes(32).toString('base64url') };
  if (config.authDisabled)
    return { config, banner: 'Authentication is disabled (SERVICE_AUTH_DISABLED=true): every request acts as the mock admin.' };
  if (config.idpIssuer) return { config, banner: `Using the identity provider at ${config.idpIssuer}.` };
  const idp = await startDevIdp({ host: '127.0.0.1', port: config.devIdpPort, audience: config.idpAudience });
  const users = DEV_USERS.map(
    (u) => `    ${u.username.padEnd(10)} password ${u.password.padEnd(20)} roles ${u.realmRoles.join(', ')}`,
  ).join('\n');
  const banner = [
    `Embedded OpenID provider (development only): ${idp.issuer}`,
    '  Users:',
    users,
    `  Browser / PKCE client: ${DEV_CLIENTS.ui}; CLI client (device grant, PKCE): ${DEV_CLIENTS.cli}`,
    '  A token for scripts (client credentials, realm role operator):',
    `    curl -s -u ${DEV_CLIENTS.automation}:${DEV_AUTOMATION_CLIENT_SECRET} -d grant_type=client_credentials ${idp.issuer}/token`,
  ].join('\n');
  const orgIdpSync = env.SERVICE_ORG_IDP_SYNC === undefined ? true : config.orgIdpSync;
  return { config: { ...config, idpIssuer: idp.issuer, orgIdpSync }, idp, banner };
}

/**
 * Gives the embedded provider's groups their roles in the default organization (DEV_ORG_MAPPINGS), as
 * IdP mappings an administrator sees and may change, each created and audited as through the API. Only
 * while the default organization has no mappings at all (in practice: on the first start), so mappings
 * changed or removed since are left as they are, and only when logins sync memberships from the claim
 * the provider fills. Answers a line for the banner, or undefined when it seeded nothing.
 */
export async function seedDevOrgMappings(services: Services): Promise<string | undefined> {
  const { config } = services;
  if (!config.orgIdpSync || config.orgIdpGroupClaim !== DEV_GROUP_CLAIM) return undefined;
  const org = await services.orgs.findDefault();
  if (!org || (await services.idpMappings.list(org.id)).length > 0) return undefined;
  const mappings = idpMappingsServiceOf(services);
  for (const { group, role } of DEV_ORG_MAPPINGS) {
    await mappings.create(org, { claim: DEV_GROUP_CLAIM, value: group, role, is_active: true });
  }
  const pairs = DEV_ORG_MAPPINGS.map(({ group, role }) => `${group} ${role}`).join(', ');
  return `  Seeded the IdP mappings of organization "${org.slug}" (group: role there): ${pairs}.`;
}

/**
 * The reference worker `svcd dev` runs in-process beside the daemon, so `npm start` executes flows out of
 * the box. It talks to the daemon over HTTP like `svcd worker` does; its settings are the worker's
 * (SERVICE_WORKER_*), with the daemon's own URL and internal token.
 */
export function startDevWorker(
  daemonUrl: string,
  config: Config,
  log: WorkerLog,
  env: Readonly<Record<string, string | undefined>>,
): ReferenceWorker {
  const settings = loadWorkerSettings(env);
  const worker = new ReferenceWorker({ ...settings, serverUrl: daemonUrl, internalApiToken: config.internalApiToken, log });
  worker.start();
  return worker;
}
