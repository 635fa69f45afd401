// Every shell block tagged `sh runnable` in the repository's Markdown is run against a started Rally, with RALLY_URL and TOKEN set as a reader has them after
// the quick start. A document's blocks run in order in one shell with `set -euo pipefail`, as in a reader's terminal, and check their own answers (`curl -f`,
// `test`, `grep`), so a command that stops working fails here.
import { spawn } from 'node:child_process';
import { expect } from 'chai';
import { processDatabaseEnv, testEnvironment } from '../support/environment.ts';
import { createTestUser, login } from '../support/identity.ts';
import { markdownFiles, parse, readDocument, ROOT } from '../support/markdown.ts';
import { PUBLIC_URL, startApi, type RunningApi } from '../support/processes.ts';

type Run = { status: number | null; output: string };

function runShell(script: string, env: Record<string, string>, timeoutMs: number): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', `set -euo pipefail\n${script}`], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, output });
    });
  });
}

/** Each document with runnable blocks, with its blocks joined in order. */
async function runnableDocuments(): Promise<{ file: string; script: string; count: number }[]> {
  const documents = [];
  for (const file of await markdownFiles()) {
    const blocks = parse(await readDocument(file)).blocks.filter(({ info }) => /^(sh|bash|shell)\s+runnable\b/.test(info));
    if (blocks.length > 0) documents.push({ file, count: blocks.length, script: blocks.map(({ code, line }) => `# ${file}:${line}\n${code}`).join('\n') });
  }
  return documents;
}

describe('runnable shell blocks of the documentation', function () {
  this.timeout(300_000);
  let api: RunningApi;
  let token: string;

  before(async () => {
    api = await startApi();
    token = (await login(api.baseUrl, await createTestUser())).accessToken;
  });
  after(() => api.stop());

  it('are found in the README and the guides', async () => {
    const files = (await runnableDocuments()).map(({ file }) => file);
    expect(files).to.include.members(['README.md', 'docs/guides/calling-the-api.md']);
  });

  it('run without an error against a started Rally', async () => {
    const env = {
      RALLY_URL: api.baseUrl,
      TOKEN: token,
      // `npx rally users create` in the quick start writes to the test database and identity provider.
      NODE_ENV: 'test',
      ...processDatabaseEnv(),
      RALLY_IDP_PORT: String(testEnvironment().identityProviderPort),
      PUBLIC_URL,
    };
    const failures: string[] = [];
    for (const { file, script, count } of await runnableDocuments()) {
      const { status, output } = await runShell(script, env, 120_000);
      if (status !== 0) failures.push(`${file} (${count} blocks) exited ${status}:\n${output.slice(-3_000)}`);
    }
    expect(failures.join('\n\n')).to.equal('');
  });
});
