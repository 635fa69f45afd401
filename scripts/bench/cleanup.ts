// The bench's cleanup stack: every process and server a run starts is registered here, so it is
// stopped, last first, when the run ends, fails halfway or is interrupted.
type Log = (line: string) => void;

/**
 * Stops what was started, last first. A signal and the normal `finally` may both call runAll; they
 * share one pass, so nothing is stopped twice or out of order.
 */
export type Cleanup = Readonly<{ add(name: string, stop: () => Promise<void>): void; runAll(): Promise<void> }>;

export function createCleanup(log: Log): Cleanup {
  const steps: { name: string; stop: () => Promise<void> }[] = [];
  let pass: Promise<void> | undefined;
  const stopInReverse = async (): Promise<void> => {
    while (steps.length > 0) {
      const step = steps.pop()!;
      await step.stop().catch((error: unknown) => log(`could not stop ${step.name}: ${(error as Error).message}`));
    }
    pass = undefined; // anything added later gets its own pass
  };
  return {
    add: (name, stop) => steps.push({ name, stop }),
    runAll: () => (pass ??= stopInReverse()),
  };
}
