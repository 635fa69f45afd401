// Mocha's fixtures: the run's shared services start once in the main process before any test process
// is forked, and each test process starts its own share before its first file (root hooks run before
// every file of a parallel run, so starting is idempotent and stopping waits for the process's end).
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { startSharedServices, stopSharedServices } from './support/shared-services.ts';
import { startTestEnvironment, stopTestEnvironment } from './support/environment.ts';
import { outputOfRunningProcesses } from './support/processes.ts';

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
  // A failed test shows what the processes it talked to logged, while they still run (a flake under
  // load cannot be rerun at will, and the test's own after() stops them next).
  afterEach(this: Mocha.Context) {
    if (this.currentTest?.state !== 'failed') return;
    const report = outputOfRunningProcesses();
    if (report) process.stderr.write(`\n=== processes running when "${this.currentTest.fullTitle()}" failed ===\n${report}\n`);
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    // A parallel test process runs many files; what it started ends with it (processes.ts).
    if (!parallelWorker) await stopTestEnvironment();
  },
};
