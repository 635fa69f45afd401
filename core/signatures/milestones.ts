// Signature milestones, defined once: fixed counts (10, 25, 50, 100, 250, 500, 1 000, … in a 1-2.5-5
// rhythm up to 10 million) plus 25%, 50%, 75% and 100% of the petition's goal when it has one.
const FIXED_MILESTONES: readonly number[] = (() => {
  const values = [10, 25, 50];
  for (let scale = 100; scale <= 10_000_000; scale *= 10) values.push(scale, scale * 2.5, scale * 5);
  return values.filter((value) => value <= 10_000_000);
})();

export function milestonesFor(goal: number | null): number[] {
  const goalSteps = goal ? [0.25, 0.5, 0.75, 1].map((share) => Math.ceil(goal * share)) : [];
  return [...new Set([...FIXED_MILESTONES, ...goalSteps])].sort((a, b) => a - b);
}

// Under heavy concurrent signing a transaction sees counts a few short of the truth; looking back a
// little makes sure a milestone is still claimed by a signature shortly after it was passed.
export const MILESTONE_LOOKBACK = 200;

/** The milestones that a signature leaving the count at `count` may be the one to claim. */
export function milestonesToClaim(count: number, goal: number | null): number[] {
  return milestonesFor(goal).filter((threshold) => threshold <= count && threshold > count - MILESTONE_LOOKBACK);
}
