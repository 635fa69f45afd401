import { expect } from 'chai';
import { formatLine, withLogContext } from '../../platform/logger.ts';

describe('log lines (platform/logger.ts)', () => {
  const parse = (line: string) => JSON.parse(line) as Record<string, unknown>;

  it('are one JSON object per line with time, level, component and message', () => {
    const line = formatLine('info', 'api', 'listening', { port: 3000 });
    expect(line.endsWith('\n')).to.equal(true);
    expect(line.trimEnd()).to.not.include('\n');
    expect(parse(line)).to.include({ level: 'info', component: 'api', message: 'listening', port: 3000 });
    expect(Date.parse(String(parse(line).time))).to.be.closeTo(Date.now(), 5_000);
  });

  it('carry the fields of the context they are written in, however deep the calls go', async () => {
    const line = await withLogContext({ request_id: 'req-12345678' }, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return withLogContext({ activity: 'attemptDelivery', attempt: 2 }, () => formatLine('debug', 'webhooks', 'webhook attempt'));
    });
    expect(parse(line)).to.include({ request_id: 'req-12345678', activity: 'attemptDelivery', attempt: 2 });
    expect(parse(formatLine('info', 'api', 'outside'))).to.not.have.property('request_id');
  });

  it('never hold a value under a credential-like field name', () => {
    const fields = {
      password: 'hunter2-correct',
      access_token: 'abc.def',
      client_secret: 's3cr3t',
      authorization: 'Basic xyz',
      api_key: 'k',
      nested: { refreshToken: 'r-value' },
    };
    const line = formatLine('warn', 'auth', 'login failed', fields);
    for (const value of ['hunter2-correct', 'abc.def', 's3cr3t', 'Basic xyz', 'r-value']) expect(line).to.not.include(value);
    expect(parse(line)).to.include({ password: '[redacted]', access_token: '[redacted]' });
  });

  it('mask credential-shaped values wherever they appear', () => {
    const jwt = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlLWJ5dGVz';
    const message = `refused rally_live_Zx81kfA9Qm2 with Bearer ${jwt} for postgres://rally:db-password@db.internal/rally`;
    const line = formatLine('error', 'api', message, { error: `token ${jwt}` });
    for (const secret of ['Zx81kfA9Qm2', jwt, 'db-password']) expect(line).to.not.include(secret);
    expect(line).to.include('postgres://rally:[redacted]@db.internal/rally');
  });
});
