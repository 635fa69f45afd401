// Integrators generate clients from /openapi.json, so the served document must pass Redocly's linter
// (its `recommended` rules) with no errors and no warnings: identical paths, a missing license or an
// example server would make generators refuse it or produce a client calling the wrong host.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { startApi, type RunningApi } from '../support/processes.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

type Problem = { ruleId: string; severity: string; message: string; location?: { pointer?: string }[] };

describe('GET /openapi.json', function () {
  this.timeout(120_000);
  let api: RunningApi;
  let dir: string;

  before(async () => {
    api = await startApi();
    dir = await mkdtemp(path.join(tmpdir(), 'rally-openapi-'));
  });
  after(async () => {
    await api.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('passes `redocly lint` with the recommended rules: no errors, no warnings', async () => {
    const file = path.join(dir, 'openapi.json');
    await writeFile(file, await (await fetch(`${api.baseUrl}/openapi.json`)).text());
    const run = await promisify(execFile)(
      process.execPath,
      [path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js'), 'lint', '--extends=recommended', '--format=json', file],
      {
        cwd: dir,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        maxBuffer: 64 * 1024 * 1024,
      },
    ).catch((error: { stdout: string; stderr: string }) => error);
    const report = JSON.parse(run.stdout) as { totals: { errors: number; warnings: number }; problems: Problem[] };
    const listed = report.problems.map((problem) => `${problem.severity} ${problem.ruleId} at ${problem.location?.[0]?.pointer}: ${problem.message}`);
    expect(listed).to.deep.equal([]);
    expect(report.totals).to.include({ errors: 0, warnings: 0 });
  });
});
