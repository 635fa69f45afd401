// Every environment variable the code reads is declared in the configuration schema (platform/config/*.ts,
// and so in the generated docs/operations/configuration.md), or is named below with who reads it and
// documented there too; every switch the tests read is documented in CONTRIBUTING.md.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { ConfigSchema } from '../../platform/config/schema.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// The tests read their own switches (CONTRIBUTING.md, "Test switches"); platform/config/ is the reader itself, by name.
const SKIPPED = new Set(['node_modules', '.git', '.data', 'dist', 'test', 'platform/config', 'platform/config.ts']);
const CONFIGURATION_REFERENCE = 'docs/operations/configuration.md';
const CONTRIBUTING = 'CONTRIBUTING.md';
// Generated and recorded files read nothing; this file names process.env[…] only to look for it.
const TEST_SKIPPED = new Set(['test/support/generated', 'test/histories', 'test/platform/config-env-reads.unit.test.ts']);

/** Read by something other than platform/config.ts, on purpose. */
const READ_ELSEWHERE: Record<string, string> = {
  BENCH_SECONDS: 'npm run bench (scripts/bench.ts)',
  BENCH_ONLY: 'npm run bench (scripts/bench.ts)',
  BENCH_DATABASE_URL: 'npm run bench (scripts/bench/environment.ts)',
  RALLY_SKIP_CHECKS: 'npm test (scripts/test.ts)',
  RALLY_TEST_JOBS: 'npm test (scripts/test.ts)',
  RALLY_URL: 'npx rally webhooks listen (bin/commands/webhooks-listen.ts)',
  RALLY_TOKEN: 'npx rally webhooks listen (bin/commands/webhooks-listen.ts)',
  PATH: 'finding the Temporal CLI (scripts/lib/temporal-cli.ts)',
  HOME: 'finding the Temporal CLI (scripts/lib/temporal-cli.ts)',
  XDG_CACHE_HOME: 'finding the Temporal CLI (scripts/lib/temporal-cli.ts)',
};
// The OpenTelemetry SDK reads the other standard OTEL_* variables itself, and Node.js NODE_OPTIONS.
const READ_BY_LIBRARIES = /^(OTEL_[A-Z0-9_]+|NODE_OPTIONS)$/;

const READS = [/\bprocess\.env\.([A-Za-z_][A-Za-z0-9_]*)/g, /\benv\.([A-Z][A-Z0-9_]*)\b/g, /\benv\[\s*['"`]([A-Za-z_][A-Za-z0-9_]*)['"`]\s*\]/g];
const DESTRUCTURED = /\{([^}]*)\}\s*=\s*process\.env\b/g;
const DYNAMIC = /\bprocess\.env\[\s*[^'"`\s]/;

async function sourceFiles(dir: string, skipped: ReadonlySet<string>): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(path.join(ROOT, dir), { withFileTypes: true })) {
    const relative = path.posix.join(dir, entry.name);
    if (skipped.has(relative) || skipped.has(entry.name)) continue;
    if (entry.isDirectory()) files.push(...(await sourceFiles(relative, skipped)));
    else if (/\.(ts|mts|cts|js|mjs|cjs)$/.test(entry.name)) files.push(relative);
  }
  return files;
}

/** `file: NAME` for every variable NAME a file under `dir` reads. */
async function environmentReads(dir = '', skipped: ReadonlySet<string> = SKIPPED): Promise<string[]> {
  const reads = new Set<string>();
  for (const file of await sourceFiles(dir, skipped)) {
    const source = await readFile(path.join(ROOT, file), 'utf8');
    for (const pattern of READS) for (const [, name] of source.matchAll(pattern)) reads.add(`${file}: ${name}`);
    for (const [, names = ''] of source.matchAll(DESTRUCTURED)) {
      for (const name of names
        .split(',')
        .map((part) => part.split(':')[0]!.trim())
        .filter(Boolean))
        reads.add(`${file}: ${name}`);
    }
    if (DYNAMIC.test(source)) reads.add(`${file}: process.env[…] (a name the test cannot see)`);
  }
  return [...reads];
}

describe('environment variables the code reads', () => {
  it('are each declared in the configuration schema, or listed as read elsewhere', async () => {
    const declared = new Set(Object.keys(ConfigSchema.properties));
    const reads = await environmentReads();
    expect(reads.length, 'the scan found no reads at all: is it looking in the right place?').to.be.greaterThan(5);
    const undeclared = reads.filter((read) => {
      const name = read.split(': ')[1]!;
      return !declared.has(name) && !(name in READ_ELSEWHERE) && !READ_BY_LIBRARIES.test(name);
    });
    expect(
      undeclared,
      'declare these in platform/config/*.ts (then run `node scripts/run.mjs scripts/config-table.ts --write`), or list them in READ_ELSEWHERE',
    ).to.deep.equal([]);
  });

  it('are each documented: the ones read elsewhere in the configuration reference', async () => {
    const reference = await readFile(path.join(ROOT, CONFIGURATION_REFERENCE), 'utf8');
    const undocumented = Object.keys(READ_ELSEWHERE).filter((name) => !reference.includes(`\`${name}\``));
    expect(undocumented, `name these in ${CONFIGURATION_REFERENCE}, "Variables read elsewhere"`).to.deep.equal([]);
  });

  it("are each documented: the tests' own switches in CONTRIBUTING.md", async () => {
    const contributing = await readFile(path.join(ROOT, CONTRIBUTING), 'utf8');
    const declared = new Set(Object.keys(ConfigSchema.properties));
    const names = new Set((await environmentReads('test', TEST_SKIPPED)).map((read) => read.split(': ')[1]!));
    expect(names.size, 'the scan found no reads in test/').to.be.greaterThan(3);
    const undocumented = [...names].filter(
      (name) => !declared.has(name) && !(name in READ_ELSEWHERE) && !READ_BY_LIBRARIES.test(name) && !contributing.includes(`\`${name}\``),
    );
    expect(undocumented, `name these in ${CONTRIBUTING}, "Test switches"`).to.deep.equal([]);
  });
});
