// Integrators generate clients from openapi.json, so the committed document must pass Redocly's linter with the repository's strict configuration
// (redocly.yaml: every rule of the `all` set at error), with no errors and no warnings. The few findings kept out on purpose are listed, with their reasons, in
// .redocly.lint-ignore.yaml.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

type Problem = { ruleId: string; severity: string; message: string; location?: { pointer?: string }[] };

describe('openapi.json', function () {
  this.timeout(120_000);

  it('passes `redocly lint` with redocly.yaml: no errors, no warnings', async () => {
    const run = await promisify(execFile)(
      process.execPath,
      [`${ROOT}node_modules/@redocly/cli/bin/cli.js`, 'lint', '--config=redocly.yaml', '--format=json', '--max-problems=10000', 'openapi.json'],
      { cwd: ROOT, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' }, maxBuffer: 64 * 1024 * 1024 },
    ).catch((error: { stdout: string; stderr: string }) => error);
    const report = JSON.parse(run.stdout) as { totals: { errors: number; warnings: number }; problems: Problem[] };
    const listed = report.problems
      .filter((problem) => problem.severity !== 'ignore')
      .map((problem) => `${problem.severity} ${problem.ruleId} at ${problem.location?.[0]?.pointer}: ${problem.message}`);
    expect(listed).to.deep.equal([]);
    expect(report.totals).to.include({ errors: 0, warnings: 0 });
  });

  it('is linted by every rule Redocly has, none turned off', async () => {
    const { parse } = await import('yaml');
    const { readFile } = await import('node:fs/promises');
    const config = parse(await readFile(`${ROOT}redocly.yaml`, 'utf8')) as { extends: string[]; rules: Record<string, string | { severity: string }> };
    expect(config.extends).to.deep.equal(['all']);
    for (const [rule, setting] of Object.entries(config.rules)) {
      expect(typeof setting === 'string' ? setting : setting.severity, rule).to.be.oneOf(['error', 'warn']);
    }
  });
});
