// The fraud watch's arithmetic, without I/O: which windows a run examines, and when a subject's signing rate counts as suspect.
export type FraudWatchSettings = { windowMs: number; baselineMs: number; multiple: number; minSignatures: number };
export type Window = { start: number; end: number };

export const SETTLE_MS = 2_000;

/**
 * The windows to examine now, oldest first, at most `max`.
 * A window is examined once it has ended and SETTLE_MS have passed (a signature's created_at is taken before
 * its transaction commits); a run resumes where the last left off but never looks further back than one
 * baseline period.
 */
export function windowsToWatch(watchedUntil: number | null, now: number, settings: FraudWatchSettings, max: number): Window[] {
  const { windowMs, baselineMs } = settings;
  const lastEnd = Math.floor((now - SETTLE_MS) / windowMs) * windowMs;
  // The first run only examines the last complete window: there is no baseline before it anyway.
  const from = Math.max(watchedUntil ?? lastEnd - windowMs, Math.floor((now - baselineMs) / windowMs) * windowMs);
  const windows: Window[] = [];
  for (let start = from; start + windowMs <= now - SETTLE_MS && windows.length < max; start += windowMs) windows.push({ start, end: start + windowMs });
  return windows;
}

/** The subject's average signatures per window over the baseline period. */
export function baselinePerWindow(baselineTotal: number, settings: FraudWatchSettings): number {
  return baselineTotal / (settings.baselineMs / settings.windowMs);
}

// Suspect when the window's signatures reach both the configured minimum and `multiple` times the average per
// window over the baseline period before (windows without signatures count as zero).
export function isSuspected(signatures: number, baselineTotal: number, settings: FraudWatchSettings): boolean {
  return signatures >= settings.minSignatures && signatures >= settings.multiple * baselinePerWindow(baselineTotal, settings);
}
