// The fraud watch as an activity: every window due since the last run (core/moderation/fraud-watch-rule.ts), each examined and committed on its own,
// heartbeating between windows, so a retry after a crash resumes at the first window not yet committed and raises no alert twice. Then the flagged-share alert
// (core/moderation/flagged-share.ts), once per petition and hour.
import { heartbeat } from '@temporalio/activity';
import type { DatabasePool } from 'slonik';
import { watchedUntil, watchWindow } from '../core/moderation/fraud-watch.ts';
import { windowsToWatch, type FraudWatchSettings } from '../core/moderation/fraud-watch-rule.ts';
import { watchFlaggedShares, type FlaggedShareSettings } from '../core/moderation/flagged-share.ts';

/** One baseline day of 5-minute windows, the default, fits in one run. */
const MAX_WINDOWS_PER_RUN = 500;

export function createFraudWatchActivities({ db, settings }: { db: DatabasePool; settings: FraudWatchSettings & FlaggedShareSettings }) {
  return {
    async watchSigningRates(): Promise<{ windows: number; alerts: number }> {
      const windows = windowsToWatch(await watchedUntil(db), Date.now(), settings, MAX_WINDOWS_PER_RUN);
      let alerts = 0;
      for (const window of windows) {
        alerts += (await watchWindow(db, window, settings)).length;
        heartbeat({ watchedUntil: window.end, alerts });
      }
      alerts += (await watchFlaggedShares(db, settings)).length;
      return { windows: windows.length, alerts };
    },
  };
}

export type FraudWatchActivities = ReturnType<typeof createFraudWatchActivities>;
