// When the fraud watch calls a signing rate suspect, and which windows it examines (issue 11: "a
// rate jumps past a configured multiple of its baseline"). Expectations are worked out by hand.
import { expect } from 'chai';
import { isSuspected, SETTLE_MS, windowsToWatch } from '../../../core/moderation/fraud-watch-rule.ts';

const MINUTE = 60_000;
// 5-minute windows, a 24-hour baseline (288 windows), 5 × the baseline, at least 50 signatures.
const settings = { windowMs: 5 * MINUTE, baselineMs: 24 * 60 * MINUTE, multiple: 5, minSignatures: 50 };

describe('fraud watch rule (core/moderation/fraud-watch-rule.ts)', () => {
  describe('isSuspected', () => {
    it('flags a subject with no history once it reaches the minimum', () => {
      expect(isSuspected(49, 0, settings)).to.equal(false);
      expect(isSuspected(50, 0, settings)).to.equal(true);
    });

    it('flags a jump past five times the average window of the last day, and not a steady rate', () => {
      // 20 a window for a day is 5,760 signatures; five times that rate is 100 in a window.
      expect(isSuspected(99, 5_760, settings)).to.equal(false);
      expect(isSuspected(100, 5_760, settings)).to.equal(true);
      expect(isSuspected(20, 5_760, settings)).to.equal(false);
    });
  });

  describe('windowsToWatch', () => {
    const now = Date.UTC(2026, 0, 1, 12, 7, 30);
    const at = (hours: number, minutes: number) => Date.UTC(2026, 0, 1, hours, minutes);

    it('examines only the last complete window on the first run', () => {
      expect(windowsToWatch(null, now, settings, 100)).to.deep.equal([{ start: at(12, 0), end: at(12, 5) }]);
    });

    it('resumes where the last run stopped, up to the last window that has settled', () => {
      expect(windowsToWatch(at(11, 50), now, settings, 100)).to.deep.equal([
        { start: at(11, 50), end: at(11, 55) },
        { start: at(11, 55), end: at(12, 0) },
        { start: at(12, 0), end: at(12, 5) },
      ]);
      const justAfter = at(12, 5) + SETTLE_MS - 1;
      expect(windowsToWatch(at(12, 0), justAfter, settings, 100)).to.deep.equal([]);
      expect(windowsToWatch(at(12, 0), justAfter + 1, settings, 100)).to.deep.equal([{ start: at(12, 0), end: at(12, 5) }]);
    });

    it('looks back one baseline period at most, and at most `max` windows per run', () => {
      const windows = windowsToWatch(at(0, 0) - 7 * 24 * 60 * MINUTE, now, settings, 1_000);
      expect(windows[0]!.start).to.equal(now - (now % (5 * MINUTE)) - 24 * 60 * MINUTE);
      expect(windows).to.have.length(288);
      expect(windowsToWatch(at(11, 0), now, settings, 2)).to.have.length(2);
    });
  });
});
