import { expect } from 'chai';
import { createRestartPolicy } from '../../scripts/lib/restart-policy.ts';

describe('npm start restart policy (scripts/lib/restart-policy.ts)', () => {
  it('waits longer after each crash within a minute: 1 s, 2 s, 4 s, 8 s', () => {
    let time = 0;
    const policy = createRestartPolicy({ now: () => time });
    const delays = [0, 1, 2, 3].map(() => {
      time += 5_000;
      return policy.crashed().delayMs;
    });
    expect(delays).to.deep.equal([1_000, 2_000, 4_000, 8_000]);
  });

  it('gives up at the fifth crash within a minute', () => {
    let time = 0;
    const policy = createRestartPolicy({ now: () => time });
    const decisions = [0, 1, 2, 3, 4].map(() => {
      time += 10_000;
      return policy.crashed();
    });
    expect(decisions.map((decision) => decision.giveUp)).to.deep.equal([false, false, false, false, true]);
    expect(decisions[4]!.recentCrashes).to.equal(5);
  });

  it('forgets crashes older than a minute, so an occasional crash restarts at once and never adds up', () => {
    let time = 0;
    const policy = createRestartPolicy({ now: () => time });
    const decisions = Array.from({ length: 10 }, () => {
      time += 61_000;
      return policy.crashed();
    });
    expect(decisions.every((decision) => !decision.giveUp && decision.delayMs === 1_000)).to.equal(true);
  });

  it('caps the wait at 30 s', () => {
    let time = 0;
    const policy = createRestartPolicy({ now: () => time, maxCrashes: 100 });
    let last = 0;
    for (let crash = 0; crash < 12; crash += 1) {
      time += 10;
      last = policy.crashed().delayMs;
    }
    expect(last).to.equal(30_000);
  });
});
