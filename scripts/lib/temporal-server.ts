// Finds or builds the real Temporal server (`go.temporal.io/server/cmd/server`) and its SQL schema tool (`…/cmd/tools/sql`) for `npm run cluster`, at the
// version the SDK targets: the per-user cache beside the CLI, else `go install` into a temporary GOBIN moved into the cache (minutes, once per machine; the
// CLI's build lock prevents double builds). The PostgreSQL schema files ship inside the schema tool, so nothing of the server's source is needed here.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { buildOnceIntoCache, chooseTemporalCli, findGo, isExecutable, runGoInstall, temporalCacheBinDir } from './temporal-cli.ts';

export const TEMPORAL_SERVER_VERSION = 'v1.29.1';
const SERVER_MODULE = 'go.temporal.io/server';

type Env = Readonly<Record<string, string | undefined>>;
type Log = (line: string) => void;

export type TemporalServerTools = Readonly<{
  server: string;
  sqlTool: string;
}>;

function runs(binary: string, args: string[]): boolean {
  return spawnSync(binary, args, { stdio: 'ignore', timeout: 30_000 }).status === 0;
}

async function bothBuilt(server: string, sqlTool: string): Promise<boolean> {
  return (await isExecutable(server)) && (await isExecutable(sqlTool)) && runs(server, ['--help']) && runs(sqlTool, ['--help']);
}

async function buildBoth(go: string, binDir: string, server: string, sqlTool: string, env: Env, log: Log): Promise<void> {
  const modules = [`${SERVER_MODULE}/cmd/server@${TEMPORAL_SERVER_VERSION}`, `${SERVER_MODULE}/cmd/tools/sql@${TEMPORAL_SERVER_VERSION}`];
  log(`building the Temporal server and schema tool with ${go} install ${modules.join(' ')} (several minutes, once)…`);
  // Both commands are named after their directories (server, sql): built aside, then renamed with the version.
  const gobin = await mkdtemp(path.join(binDir, '.server-build-'));
  try {
    await runGoInstall(go, modules, gobin, env, log);
    await rename(path.join(gobin, 'server'), server);
    await rename(path.join(gobin, 'sql'), sqlTool);
  } finally {
    await rm(gobin, { recursive: true, force: true });
  }
}

// Cached as temporal-server-<version> and temporal-sql-tool-<version>; the schema is named `--schema-name
// postgresql/v12/temporal`.
export async function resolveTemporalServer(log: Log, env: Env = process.env): Promise<TemporalServerTools> {
  const binDir = temporalCacheBinDir(env);
  const server = path.join(binDir, `temporal-server-${TEMPORAL_SERVER_VERSION}`);
  const sqlTool = path.join(binDir, `temporal-sql-tool-${TEMPORAL_SERVER_VERSION}`);
  const go = await findGo(env);
  await chooseTemporalCli(
    [
      {
        label: `the per-user cache ${binDir}`,
        async find() {
          return (await bothBuilt(server, sqlTool)) ? { path: server } : { skipped: `no runnable ${path.basename(server)} and ${path.basename(sqlTool)}` };
        },
      },
      {
        label: `a build from Go modules (go install ${SERVER_MODULE}/cmd/server and cmd/tools/sql @${TEMPORAL_SERVER_VERSION})`,
        async find() {
          if (!go) return { skipped: 'Go is not installed (looked on PATH and at /usr/local/go/bin/go)' };
          await buildOnceIntoCache(
            {
              binDir,
              what: 'the Temporal server',
              lockName: '.temporal-server-build.lock',
              isBuilt: () => bothBuilt(server, sqlTool),
              build: () => buildBoth(go, binDir, server, sqlTool, env, log),
            },
            log,
          );
          return { path: server };
        },
      },
    ],
    log,
    'the Temporal server',
  );
  return { server, sqlTool };
}
