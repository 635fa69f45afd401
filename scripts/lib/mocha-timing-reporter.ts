// Mocha's spec reporter plus, at the end, the slowest test files and tests of the run, so that a slow
// test is seen when it lands. A file's time is its tests' and hooks' time (in a parallel run the events
// arrive replayed, so wall-clock time between them means nothing).
import Mocha from 'mocha';

const { EVENT_TEST_END, EVENT_HOOK_END, EVENT_RUN_END } = Mocha.Runner.constants;
const SHOWN = 15;

type Timed = { file?: string; duration?: number; fullTitle(): string; titlePath?(): string[]; $$fullTitle?: string };

function title(runnable: Timed): string {
  return runnable.$$fullTitle ?? runnable.fullTitle();
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1).padStart(7)} s`;
}

export default class TimingReporter extends Mocha.reporters.Spec {
  constructor(runner: Mocha.Runner, options: Mocha.MochaOptions) {
    super(runner, options);
    const files = new Map<string, number>();
    const tests: Array<{ name: string; ms: number }> = [];
    const count = (runnable: Timed, isTest: boolean) => {
      const ms = runnable.duration ?? 0;
      const file = runnable.file ?? '(root hooks: each test process starting its services)';
      files.set(file, (files.get(file) ?? 0) + ms);
      if (isTest) tests.push({ name: `${title(runnable)} (${file.replace(`${process.cwd()}/`, '')})`, ms });
    };
    runner.on(EVENT_TEST_END, (test) => count(test as unknown as Timed, true));
    runner.on(EVENT_HOOK_END, (hook) => count(hook as unknown as Timed, false));
    runner.once(EVENT_RUN_END, () => {
      const slowestFiles = [...files].sort((a, b) => b[1] - a[1]).slice(0, SHOWN);
      const slowestTests = tests.sort((a, b) => b.ms - a.ms).slice(0, SHOWN);
      const lines = ['', `  The ${SHOWN} slowest test files (tests and hooks):`];
      for (const [file, ms] of slowestFiles) lines.push(`  ${seconds(ms)}  ${file.replace(`${process.cwd()}/`, '')}`);
      lines.push('', `  The ${SHOWN} slowest tests:`);
      for (const { name, ms } of slowestTests) lines.push(`  ${seconds(ms)}  ${name}`);
      process.stdout.write(`${lines.join('\n')}\n`);
    });
  }
}
