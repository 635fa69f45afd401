import { expect } from 'chai';
import { chooseTemporalCli, TemporalCliUnavailableError, type LookupOutcome, type LookupStep } from '../../scripts/lib/temporal-cli.ts';

// Steps that answer as told and record that they were asked.
function steps(answers: Record<string, LookupOutcome | Error>, asked: string[]): LookupStep[] {
  return Object.entries(answers).map(([label, answer]) => ({
    label,
    async find() {
      asked.push(label);
      if (answer instanceof Error) throw answer;
      return answer;
    },
  }));
}

describe('Temporal CLI lookup (scripts/lib/temporal-cli.ts)', () => {
  it('prints the order, then takes the first step that finds a CLI and asks no later step', async () => {
    const asked: string[] = [];
    const lines: string[] = [];
    const cli = await chooseTemporalCli(
      steps(
        {
          'temporal on PATH': { skipped: 'not found' },
          'the per-user cache': { path: '/home/ada/.cache/rally/bin/temporal' },
          'the SDK download': { path: '/tmp/cli-downloaded' },
          'a Go build': { path: '/never' },
        },
        asked,
      ),
      (line) => lines.push(line),
    );
    expect(cli).to.equal('/home/ada/.cache/rally/bin/temporal');
    expect(asked).to.deep.equal(['temporal on PATH', 'the per-user cache']);
    expect(lines[0]).to.equal(
      'looking for the Temporal CLI, in this order: (1) temporal on PATH; (2) the per-user cache; (3) the SDK download; (4) a Go build',
    );
    expect(lines.slice(1)).to.deep.equal(['(1) temporal on PATH: not found', '(2) the per-user cache: found /home/ada/.cache/rally/bin/temporal']);
  });

  it('falls through to the Go build when the download server is unreachable', async () => {
    const asked: string[] = [];
    const lines: string[] = [];
    const cli = await chooseTemporalCli(
      steps(
        {
          PATH: { skipped: 'not found' },
          cache: { skipped: 'nothing usable' },
          download: { skipped: 'https://temporal.download/ is not reachable from this machine' },
          build: { path: '/cache/temporal' },
        },
        asked,
      ),
      (line) => lines.push(line),
    );
    expect(cli).to.equal('/cache/temporal');
    expect(asked).to.deep.equal(['PATH', 'cache', 'download', 'build']);
    expect(lines).to.include('(3) download: https://temporal.download/ is not reachable from this machine');
  });

  it('treats a step that throws as skipped and goes on to the next', async () => {
    const asked: string[] = [];
    const cli = await chooseTemporalCli(steps({ PATH: new Error('EACCES'), cache: { path: '/c/temporal' } }, asked), () => {});
    expect(cli).to.equal('/c/temporal');
  });

  it('fails naming every outcome when no step finds a CLI', async () => {
    const attempt = chooseTemporalCli(steps({ PATH: { skipped: 'not found' }, build: { skipped: 'Go is not installed' } }, []), () => {});
    const error = await attempt.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).to.be.instanceOf(TemporalCliUnavailableError);
    expect((error as Error).message)
      .to.include('PATH: not found')
      .and.include('build: Go is not installed');
  });
});
