// `node scripts/run.mjs scripts/ensure-temporal-cli.ts`: makes sure the Temporal CLI is available
// (building it into the cache when needed) and prints its path on stdout. CI runs this ahead of the
// tests so the minutes-long first build shows up as its own step rather than inside a test timeout.
import { resolveTemporalCli } from './lib/temporal-cli.ts';

const log = (line: string): void => {
  process.stderr.write(`rally: ${line}\n`);
};

try {
  const cli = await resolveTemporalCli(log, process.env);
  process.stdout.write(`${cli}\n`);
} catch (error) {
  log(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
}
