import type { Services } from '../../../services.js';
import { resourceFamilies, type FamilyDeps } from '../families/index.js';
import { ApplyLockRepo } from '../repos/apply-lock-repo.js';
import { ConfigExchangeEngine } from './engine.js';

export { ApplyCancelled, applyResultOf, ConfigExchangeEngine, type Operator, type Org, type Scope } from './engine.js';
export type { FamilyDeps } from '../families/index.js';
export type { Bundle } from './validate-bundle.js';

/** The engine over every working family: what configuration exchange's operations and platform sync both run. */
export function buildEngine(services: Services, deps: FamilyDeps): ConfigExchangeEngine {
  return new ConfigExchangeEngine(services.db.knex, resourceFamilies(services, deps), services.audit, new ApplyLockRepo());
}
