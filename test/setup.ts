// Mocha's fixtures: the run's shared services start once in the main process before any test process
// is forked, and each test process starts its own share before its first file (root hooks run before
// every file of a parallel run, so starting is idempotent and stopping waits for the process's end).
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { startSharedServices, stopSharedServices } from './support/shared-services.ts';
import { startTestEnvironment, stopTestEnvironment } from './support/environment.ts';

// Workers in tests log only what needs attention.
Runtime.install({ logger: new DefaultLogger('WARN') });

const parallelWorker = process.env.MOCHA_WORKER_ID !== undefined;

export async function mochaGlobalSetup(): Promise<void> {
  await startSharedServices(process.env, Number(process.env.RALLY_TEST_JOBS ?? 1));
}

export async function mochaGlobalTeardown(): Promise<void> {
  await stopSharedServices();
}

export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(180_000);
    await startTestEnvironment(process.env);
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    // A parallel test process runs many files; what it started ends with it (processes.ts).
    if (!parallelWorker) await stopTestEnvironment();
  },
};
