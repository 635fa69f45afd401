// Mocha root hooks: the real services start before the first test and stop after the last.
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { startTestEnvironment, stopTestEnvironment } from './support/environment.ts';

// Workers in tests log only what needs attention.
Runtime.install({ logger: new DefaultLogger('WARN') });

export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(180_000);
    await startTestEnvironment(process.env);
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    await stopTestEnvironment();
  },
};
