import { expect } from 'chai';
import { createDependencyStatus } from '../../../api/health/dependency-status.ts';

// A clock the test moves by hand; checks count their calls and answer as told.
function fixture() {
  let time = 0;
  const calls = { database: 0, temporal: 0 };
  const behaviour: Record<'database' | 'temporal', 'ok' | 'down' | 'hang'> = { database: 'ok', temporal: 'ok' };
  const check = (name: 'database' | 'temporal') => () => {
    calls[name] += 1;
    if (behaviour[name] === 'down') return Promise.reject(new Error('connection refused'));
    if (behaviour[name] === 'hang') return new Promise(() => {});
    return Promise.resolve();
  };
  const status = createDependencyStatus({
    checks: { database: check('database'), temporal: check('temporal') },
    maxAgeMs: 1_000,
    timeoutMs: 50,
    now: () => time,
  });
  return {
    status,
    calls,
    behaviour,
    advance: (ms: number) => {
      time += ms;
    },
  };
}

describe('health dependency status', () => {
  it('reuses a check younger than one second instead of asking the dependencies again', async () => {
    const { status, calls, advance } = fixture();
    await status.current();
    advance(999);
    const snapshot = await status.current();
    expect(calls).to.deep.equal({ database: 1, temporal: 1 });
    expect(snapshot.checks).to.deep.equal({ database: 'ok', temporal: 'ok' });
  });

  it('checks again once the last answer is a second old, and reports a refused dependency as unreachable', async () => {
    const { status, calls, behaviour, advance } = fixture();
    await status.current();
    behaviour.database = 'down';
    advance(1_000);
    const snapshot = await status.current();
    expect(calls.database).to.equal(2);
    expect(snapshot.checks).to.deep.equal({ database: 'unreachable', temporal: 'ok' });
  });

  it('reports a dependency that does not answer as unreachable after the check timeout', async () => {
    const { status, behaviour } = fixture();
    behaviour.temporal = 'hang';
    const snapshot = await status.current();
    expect(snapshot.checks).to.deep.equal({ database: 'ok', temporal: 'unreachable' });
  });

  it('runs one check for all the probes that arrive while it is in flight', async () => {
    const { status, calls } = fixture();
    await Promise.all([status.current(), status.current(), status.current()]);
    expect(calls).to.deep.equal({ database: 1, temporal: 1 });
  });
});
