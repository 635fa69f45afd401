// The bench meters every process of `npm run cluster` on its own (issue 48): each process of the
// cluster's tree is told apart by its command line.
import { expect } from 'chai';
import { classifyCommand } from '../../../scripts/bench/process-cpu.ts';

describe('the bench meter tells the processes of a cluster apart (scripts/bench/process-cpu.ts)', () => {
  it('names HAProxy, PgBouncer, each API, each worker and the Temporal server by their command lines', () => {
    expect(classifyCommand('haproxy -db -f /work/.data/bench/haproxy/haproxy.cfg')).to.equal('haproxy');
    expect(classifyCommand('pgbouncer -u postgres /work/.data/bench/pgbouncer/pgbouncer.ini')).to.equal('pgbouncer');
    expect(classifyCommand('/usr/bin/node api/main.ts')).to.equal('api');
    expect(classifyCommand('/usr/bin/node --inspect=127.0.0.1:9229 worker/main.ts')).to.equal('worker');
    expect(classifyCommand('/root/.cache/temporal-server --root /work --config config --env rally --allow-no-auth start')).to.equal('temporal');
  });

  it('leaves the Web UI, the identity provider and the supervisor to `other`', () => {
    expect(classifyCommand('/root/.cache/temporal-ui-server --root /work --config config --env ui start')).to.equal('other');
    expect(classifyCommand('/usr/bin/node identity-provider/main.ts')).to.equal('other');
    expect(classifyCommand('/usr/bin/node scripts/cluster.ts')).to.equal('other');
  });
});
