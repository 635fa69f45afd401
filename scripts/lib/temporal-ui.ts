// Finds or builds the Temporal Web UI server for `npm run cluster`: the CLI serves the UI only for its own dev server. The UI server is its own Go module
// (`github.com/temporalio/ui-server/v2`, at the version the CLI embeds, assets included), found or built like the server (temporal-server.ts): the per-user
// cache, then `go install …/cmd/server` (minutes, once). Configured by ops/temporal/ui.yaml, rendered from the environment like the server's file.
import { rename, mkdtemp, rm } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { buildOnceIntoCache, chooseTemporalCli, findGo, isExecutable, runGoInstall, temporalCacheBinDir } from './temporal-cli.ts';

export const TEMPORAL_UI_VERSION = 'v2.42.1'; // what the CLI v1.5.1 embeds (its go.mod)
const UI_MODULE = `github.com/temporalio/ui-server/v2/cmd/server@${TEMPORAL_UI_VERSION}`;

type Env = Readonly<Record<string, string | undefined>>;
type Log = (line: string) => void;

async function built(binary: string): Promise<boolean> {
  return (await isExecutable(binary)) && spawnSync(binary, ['--help'], { stdio: 'ignore', timeout: 30_000 }).status === 0;
}

export async function resolveTemporalUi(log: Log, env: Env = process.env): Promise<string> {
  const binDir = temporalCacheBinDir(env);
  const binary = path.join(binDir, `temporal-ui-server-${TEMPORAL_UI_VERSION}`);
  const go = await findGo(env);
  return chooseTemporalCli(
    [
      {
        label: `the per-user cache ${binDir}`,
        find: async () => ((await built(binary)) ? { path: binary } : { skipped: `no runnable ${path.basename(binary)}` }),
      },
      {
        label: `a build from Go modules (go install ${UI_MODULE})`,
        async find() {
          if (!go) return { skipped: 'Go is not installed (looked on PATH and at /usr/local/go/bin/go)' };
          await buildOnceIntoCache(
            {
              binDir,
              what: 'the Temporal Web UI server',
              lockName: '.temporal-ui-build.lock',
              isBuilt: () => built(binary),
              async build() {
                log(`building the Temporal Web UI server with ${go} install ${UI_MODULE} (minutes, once)…`);
                const gobin = await mkdtemp(path.join(binDir, '.ui-build-'));
                try {
                  await runGoInstall(go, [UI_MODULE], gobin, env, log);
                  await rename(path.join(gobin, 'server'), binary);
                } finally {
                  await rm(gobin, { recursive: true, force: true });
                }
              },
            },
            log,
          );
          return { path: binary };
        },
      },
    ],
    log,
    'the Temporal Web UI server',
  );
}
