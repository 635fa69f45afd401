// Composes every activity group from the clients they need. The worker calls this once.
import type { DatabasePool } from 'slonik';
import { createApiKeyActivities } from './api-keys.ts';
import { createMaintenanceActivities } from './maintenance.ts';

export type ActivityDependencies = { db: DatabasePool };

export function createActivities(deps: ActivityDependencies) {
  return {
    ...createMaintenanceActivities({ db: deps.db }),
    ...createApiKeyActivities({ db: deps.db }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
