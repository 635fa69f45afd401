// The SDK as people install it: `npm pack` in a copy of clients/typescript as a clean checkout has it
// (no dist/), the tarball unpacked into an empty project beside only the dependencies it declares, a
// consumer type-checked against the packed declarations, and run against a started Rally.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { createTestUser } from '../support/identity.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SDK = path.join(ROOT, 'clients/typescript');

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false', ...env } });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/** What a newcomer writes from docs/guides/sdk.md: log in, start and publish a petition, sign it. */
const EXAMPLE = `
import { createRallyClient, loginSession, unwrap } from '@rally/sdk';

const baseUrl = process.env.RALLY_URL!;
async function logIn(email: string, password: string) {
  const session = unwrap(await createRallyClient({ baseUrl }).POST('/v1/auth/login', { body: { email, password } }));
  return createRallyClient({ baseUrl, token: loginSession({ baseUrl, tokens: session.data }) });
}
const ada = await logIn(process.env.CREATOR_EMAIL!, process.env.CREATOR_PASSWORD!);
const petition = {
  title: 'Plant trees along the river path',
  description: 'The river path has no shade in summer; the council should plant a row of trees along it.',
};
const created = unwrap(await ada.POST('/v1/petitions', { body: petition }));
unwrap(await ada.POST('/v1/petitions/{id}/publish', { params: { path: { id: created.data.id } } }));
const grace = await logIn(process.env.SIGNER_EMAIL!, process.env.SIGNER_PASSWORD!);
const signed = unwrap(await grace.POST('/v1/petitions/{id}/signatures', { params: { path: { id: created.data.id } }, body: { comment: 'Yes, please.' } }));
console.log(JSON.stringify({ petition: created.data.id, signedPetition: signed.data.petition_id }));
`;

describe('the SDK package (clients/typescript, npm pack)', function () {
  this.timeout(300_000);
  let scratch: string;
  let tarball: string;
  let packed: { version: string; dependencies: Record<string, string>; exports: Record<string, { types?: string }> };

  before(() => {
    scratch = mkdtempSync(path.join(tmpdir(), 'rally-sdk-pack-'));
    const checkout = path.join(scratch, 'checkout');
    cpSync(SDK, checkout, { recursive: true, filter: (source) => !/[/\\](dist|node_modules)$/.test(source) });
    // Build tools (TypeScript and the dependency's types) from the repository's install, not the network.
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(checkout, 'node_modules'), 'dir');
    const [result] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', scratch], checkout)) as [{ filename: string }];
    tarball = path.join(scratch, result.filename);
    packed = JSON.parse(run('tar', ['-xzOf', tarball, 'package/package.json'], scratch));
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('packs the compiled code and its declarations (prepack builds), at the API version, with its metadata', () => {
    const files = run('tar', ['-tzf', tarball], scratch).split('\n');
    for (const file of ['package/dist/index.js', 'package/dist/index.d.ts', 'package/dist/webhooks.js', 'package/dist/generated/openapi.d.ts'])
      expect(files).to.include(file);
    expect(files.filter((file) => file.startsWith('package/src/'))).to.deep.equal([]);
    const server = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(packed.version, 'the SDK follows the API').to.equal(server.version);
    expect(packed.exports['.']?.types).to.equal('./dist/index.d.ts');
    expect(packed).to.have.nested.property('repository.directory', 'clients/typescript');
    expect(packed).to.have.property('homepage').that.is.a('string');
    expect(packed).to.have.nested.property('publishConfig.access', 'public');
  });

  it("declares its calls without openapi-fetch's types, which cost a consumer's type-check several times the SDK's own", () => {
    const declarations = run('tar', ['-tzf', tarball], scratch)
      .split('\n')
      .filter((file) => file.endsWith('.d.ts'));
    for (const file of declarations)
      expect(run('tar', ['-xzOf', tarball, file], scratch), file).to.not.match(/from ['"]openapi-(fetch|typescript-helpers)['"]/);
  });

  describe('installed in an empty project', () => {
    let api: RunningApi;
    let worker: RallyProcess;
    let app: string;

    before(async () => {
      app = path.join(scratch, 'app');
      mkdirSync(path.join(app, 'node_modules/@rally'), { recursive: true });
      run('tar', ['-xzf', tarball, '-C', path.join(app, 'node_modules/@rally')], scratch);
      renameSync(path.join(app, 'node_modules/@rally/package'), path.join(app, 'node_modules/@rally/sdk'));
      // Only what the package declares, so a missing dependency would fail here as on a user's machine.
      for (const name of [...Object.keys(packed.dependencies), '@types/node']) {
        mkdirSync(path.dirname(path.join(app, 'node_modules', name)), { recursive: true });
        symlinkSync(path.join(ROOT, 'node_modules', name), path.join(app, 'node_modules', name), 'dir');
      }
      writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'my-app', private: true, type: 'module' }));
      const compilerOptions = { module: 'nodenext', target: 'es2022', strict: true, noEmit: true, types: ['node'] };
      writeFileSync(path.join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['sign.ts'] }));
      writeFileSync(path.join(app, 'sign.ts'), EXAMPLE);
      const env = { RALLY_TASK_QUEUE: uniqueTaskQueue('sdk-package') };
      [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    });
    after(async () => Promise.all([api?.stop(), worker?.stop()]));

    it('type-checks a consumer against the packed declarations', () => {
      run(path.join(ROOT, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], app);
    });

    it('runs the example: a petition created, published and signed through the installed package', async () => {
      const [creator, signer] = await Promise.all([createTestUser(), createTestUser()]);
      const env = {
        RALLY_URL: api.baseUrl,
        CREATOR_EMAIL: creator.email,
        CREATOR_PASSWORD: creator.password,
        SIGNER_EMAIL: signer.email,
        SIGNER_PASSWORD: signer.password,
      };
      const output = JSON.parse(run(process.execPath, ['sign.ts'], app, env)) as { petition: string; signedPetition: string };
      expect(output.signedPetition).to.equal(output.petition);
    });
  });
});
