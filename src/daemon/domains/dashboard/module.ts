import type { DomainRoutes } from '../../http/types.js';
import type { Services } from '../../services.js';
import { DashboardRepo } from './dashboard-repo.js';
import { OrgHealthRepo } from './org-health-repo.js';
import { OrgHealthService } from './org-health-service.js';
import { dashboardRoutes } from './routes.js';
import { StatsService, type Clock } from './stats-service.js';

export interface DashboardModule {
  readonly routes: readonly DomainRoutes[];
}

/** Dashboards (issue 27): the active organization's figures and every organization's health; read-only. `clock` is a test's. */
export function dashboardModule(services: Services, clock: Clock = () => new Date()): DashboardModule {
  const { knex } = services.db;
  return {
    routes: [
      dashboardRoutes(
        new StatsService(new DashboardRepo(knex), clock),
        new OrgHealthService(new OrgHealthRepo(knex), clock),
        services.explainer,
      ),
    ],
  };
}
