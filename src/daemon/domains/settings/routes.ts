import { environmentVariablesAnswer } from '../../../shared/api/environment-variables.js';
import { noQuery } from '../../../shared/api/query.js';
import type { Config } from '../../config/config.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';
import { effectiveSettings } from './effective-settings.js';

/** `environment_variable:view`: the daemon's effective configuration, secrets masked. */
export function settingsRoutes(config: Config): DomainRoutes {
  const answer = { items: effectiveSettings(config) };
  return {
    'GET /settings/environment-variables': route({
      summary:
        "Every setting of this daemon instance (README, Configuration) with its effective value as the environment would write it, its default and whether the value is the default's. A secret's value (database URL, internal token, secrets key, the IdP admin client's secret) shows only whether it is set: `********`, never the value or its length.",
      query: noQuery,
      responses: { 200: { description: 'The settings', schema: environmentVariablesAnswer } },
      handle(ctx) {
        ctx.body = answer;
      },
    }),
  };
}
