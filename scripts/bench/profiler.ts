// `npm run bench -- --profile`: a CPU profile of each process under test for each measured window. Node processes (API, worker) are profiled through the
// DevTools protocol on an inspector port, one .cpuprofile per window; the Temporal server, a Go binary, is sampled with `perf record`. Either way the window's
// self time per frame is kept, so a MISS row can name its five hottest frames.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Role } from './process-cpu.ts';

/** Frame → self milliseconds. */
export type SelfTimes = Map<string, number>;
export type Profiled = Readonly<{ role: Role; pid?: number; inspectPort?: number }>;
type Running = Readonly<{ stop(file: string): Promise<SelfTimes | null> }>;

const SAMPLING_INTERVAL_US = 500;
const IGNORED = new Set(['(idle)', '(root)']);

type CpuProfile = {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples?: number[];
  timeDeltas?: number[];
};

/** Self time per frame: each sample's time delta belongs to the node it hit. */
export function selfTimesOf(profile: CpuProfile): SelfTimes {
  const names = new Map(
    profile.nodes.map((node) => {
      const { functionName, url, lineNumber } = node.callFrame;
      const file = url ? ` ${url.replace(/^file:\/\//, '').replace(/^.*\/(node_modules|wt-\d+\w*|main)\//, '')}:${lineNumber + 1}` : '';
      return [node.id, `${functionName || '(anonymous)'}${file}`];
    }),
  );
  const times: SelfTimes = new Map();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let index = 0; index < samples.length; index += 1) {
    const name = names.get(samples[index]!) ?? '(unknown)';
    if (IGNORED.has(name)) continue;
    times.set(name, (times.get(name) ?? 0) + Math.max(0, deltas[index] ?? 0) / 1000);
  }
  return times;
}

type Inspector = { send(method: string, params?: object): Promise<Record<string, unknown>>; close(): void };

async function connectInspector(port: number): Promise<Inspector> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`, { signal: AbortSignal.timeout(5_000) })).json()) as {
    webSocketDebuggerUrl: string;
  }[];
  const socket = new WebSocket(targets[0]!.webSocketDebuggerUrl);
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve(), { once: true });
    socket.addEventListener('error', () => reject(new Error(`no inspector session on port ${port}`)), { once: true });
  });
  let nextId = 1;
  const waiting = new Map<number, (result: Record<string, unknown>) => void>();
  socket.addEventListener('message', (message: { data: unknown }) => {
    const reply = JSON.parse(String(message.data)) as { id?: number; result?: Record<string, unknown> };
    if (reply.id !== undefined) waiting.get(reply.id)?.(reply.result ?? {});
  });
  return {
    send: (method, params = {}) =>
      new Promise((resolve) => {
        const id = nextId++;
        waiting.set(id, resolve);
        socket.send(JSON.stringify({ id, method, params }));
      }),
    close: () => socket.close(),
  };
}

async function startNodeProfile(port: number): Promise<Running> {
  const inspector = await connectInspector(port);
  await inspector.send('Profiler.enable');
  await inspector.send('Profiler.setSamplingInterval', { interval: SAMPLING_INTERVAL_US });
  await inspector.send('Profiler.start');
  return {
    async stop(file) {
      try {
        const { profile } = (await inspector.send('Profiler.stop')) as { profile: CpuProfile };
        await writeFile(`${file}.cpuprofile`, JSON.stringify(profile));
        return selfTimesOf(profile);
      } finally {
        inspector.close();
      }
    },
  };
}

const PERF_FREQUENCY_HZ = 499;

/** `perf report -F sample,sym` lines look like "    94  [.] runtime.mallocgc": samples, each 1/PERF_FREQUENCY_HZ s of CPU. */
function parsePerfReport(text: string): SelfTimes {
  const times: SelfTimes = new Map();
  for (const line of text.split('\n')) {
    const match = /^\s*(\d+)\s+\[[.k]\]\s+(.+?)\s*$/.exec(line);
    if (match) times.set(match[2]!, (times.get(match[2]!) ?? 0) + (Number(match[1]) * 1000) / PERF_FREQUENCY_HZ);
  }
  return times;
}

function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('error', () => resolve(''));
    child.once('close', () => resolve(out));
  });
}

function startPerf(pid: number, file: string): Running {
  const data = `${file}.perf.data`;
  const perf: ChildProcess = spawn('perf', ['record', '-q', '-e', 'cpu-clock', '-F', String(PERF_FREQUENCY_HZ), '-p', String(pid), '-o', data], {
    stdio: 'ignore',
  });
  const exited = new Promise<boolean>((resolve) => {
    perf.once('error', () => resolve(false));
    perf.once('exit', (code) => resolve(code === 0 || code === null));
  });
  return {
    async stop() {
      perf.kill('SIGINT');
      if (!(await exited)) return null;
      return parsePerfReport(await run('perf', ['report', '-i', data, '--stdio', '--no-children', '-F', 'sample,sym', '-q']));
    },
  };
}

/** Starts a profile of every profiled process; stop() writes the files under `dir` and returns self times per role. */
export async function startProfiles(
  processes: readonly Profiled[],
  dir: string,
  label: string,
): Promise<{ stop(): Promise<{ files: string[]; selfTimes: Map<Role, SelfTimes> }> }> {
  await mkdir(dir, { recursive: true });
  const slug = label
    .replace(/[^a-z0-9]+/gi, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 80);
  const running: { role: Role; file: string; profile: Running }[] = [];
  for (const [index, target] of processes.entries()) {
    const file = path.join(dir, `${slug}-${target.role}-${index}`);
    try {
      if (target.inspectPort !== undefined) running.push({ role: target.role, file, profile: await startNodeProfile(target.inspectPort) });
      else if (target.pid !== undefined) running.push({ role: target.role, file, profile: startPerf(target.pid, file) });
    } catch {
      // A process that went away or has no inspector is left out of this window's profiles.
    }
  }
  return {
    async stop() {
      const selfTimes = new Map<Role, SelfTimes>();
      const files: string[] = [];
      for (const { role, file, profile } of running) {
        const times = await profile.stop(file).catch(() => null);
        if (!times) continue;
        files.push(path.relative(process.cwd(), file));
        const merged = selfTimes.get(role) ?? new Map<string, number>();
        for (const [frame, ms] of times) merged.set(frame, (merged.get(frame) ?? 0) + ms);
        selfTimes.set(role, merged);
      }
      return { files, selfTimes };
    },
  };
}
