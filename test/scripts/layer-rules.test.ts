// The import directions of scripts/eslint.config.js are enforced: a file that breaks one fails the
// lint step of `npm test`. Proven here by linting throwaway files placed where they would break them.
import { randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { ESLint } from 'eslint';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

async function lintThrowaway(folder: string, source: string): Promise<string[]> {
  const file = `${ROOT}${folder}/layer-probe-${randomUUID().slice(0, 8)}.ts`;
  await writeFile(file, source);
  try {
    const eslint = new ESLint({ cwd: ROOT, overrideConfigFile: `${ROOT}scripts/eslint.config.js` });
    const [result] = await eslint.lintFiles([file]);
    return (result?.messages ?? []).filter((message) => message.severity === 2).map((message) => `${message.ruleId}: ${message.message}`);
  } finally {
    await rm(file, { force: true });
  }
}

describe('import rules (scripts/eslint.config.js)', function () {
  this.timeout(120_000);

  it('reports core/ importing from api/', async () => {
    const errors = await lintThrowaway('core', "import { sendData } from '../api/http/context.ts';\nexport const probe = sendData;\n");
    expect(errors.join('\n')).to.include('no-restricted-imports').and.include('core/ is the domain');
  });

  it('reports core/ importing koa', async () => {
    const errors = await lintThrowaway('core', "import Koa from 'koa';\nexport const probe = Koa;\n");
    expect(errors.join('\n')).to.include('no-restricted-imports');
  });

  it('reports workflows/ importing a Node built-in', async () => {
    const errors = await lintThrowaway('workflows', "import { readFileSync } from 'node:fs';\nexport const probe = readFileSync;\n");
    expect(errors.join('\n')).to.include('no-restricted-imports').and.include('deterministic sandbox');
  });

  it('accepts core/ importing the ground floor', async () => {
    expect(await lintThrowaway('core', "import { sql } from '../db/sql.ts';\nexport const probe = sql;\n")).to.deep.equal([]);
  });
});
