// Every history in test/histories/ is replayed against today's workflow code: a change that would
// break a running workflow (non-determinism) fails here. The suite proves it can fail with one
// deliberately altered history in test/histories/altered/, which must be rejected.
import { expect } from 'chai';
import { readdir, readFile } from 'node:fs/promises';
import { Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { testEnvironment } from '../support/environment.ts';
import { HISTORIES_DIR } from '../support/workflows.ts';

async function loadHistories(dir: string) {
  const files = (await readdir(dir)).filter((file) => file.endsWith('.json')).sort();
  return Promise.all(
    files.map(async (file) => ({ workflowId: file.replace(/\.json$/, ''), history: JSON.parse(await readFile(`${dir}${file}`, 'utf8')) as unknown })),
  );
}

describe('workflow replay (test/histories/)', function () {
  this.timeout(120_000);

  it('has histories to replay', async () => {
    expect(await loadHistories(HISTORIES_DIR)).to.have.length.greaterThan(0);
  });

  it('replays every recorded history against the current workflow code', async () => {
    const histories = await loadHistories(HISTORIES_DIR);
    const workflowBundle = await testEnvironment().workflowBundle();
    const failures: string[] = [];
    for await (const result of Worker.runReplayHistories({ workflowBundle }, histories)) {
      if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
    }
    expect(failures).to.deep.equal([]);
  });

  it('rejects the deliberately altered history as non-deterministic', async () => {
    const altered = await loadHistories(`${HISTORIES_DIR}altered/`);
    expect(altered).to.have.length.greaterThan(0);
    const workflowBundle = await testEnvironment().workflowBundle();
    for (const { workflowId, history } of altered) {
      const replay = Worker.runReplayHistory({ workflowBundle }, history, workflowId);
      await expectRejection(replay, DeterminismViolationError);
    }
  });
});

async function expectRejection(promise: Promise<unknown>, errorType: new (...args: never[]) => Error) {
  const outcome = await promise.then(
    () => ({ rejected: false as const }),
    (error: unknown) => ({ rejected: true as const, error }),
  );
  expect(outcome.rejected, 'the replay should have failed').to.equal(true);
  if (outcome.rejected) expect(outcome.error).to.be.instanceOf(errorType);
}
