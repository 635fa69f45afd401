// GET /login (issue 42): a logged-in browser is sent on at once, so return_to must resolve to a path of
// Rally's own however it is written (dot segments, percent-encoding); and an anonymous request writes
// no row: the attempt travels sealed in the browser's login cookie.
import { expect } from 'chai';
import { z } from 'zod';
import { startBrowserSession } from '../../../core/browser-sessions/sessions.ts';
import { sql } from '../../../db/sql.ts';
import { testEnvironment } from '../../support/environment.ts';
import { createTestUser } from '../../support/identity.ts';
import { PUBLIC_URL, startApi, type RunningApi } from '../../support/processes.ts';

const LIFETIMES = { idleTtlMs: 3_600_000, maxTtlMs: 86_400_000 };

describe('GET /login', function () {
  this.timeout(60_000);
  let api: RunningApi;
  before(async () => {
    api = await startApi();
  });
  after(() => api.stop());

  const goToLogin = (returnTo: string, cookie?: string) =>
    fetch(`${api.baseUrl}/login?${new URLSearchParams({ return_to: returnTo })}`, { headers: cookie ? { cookie } : {}, redirect: 'manual' });

  it('sends a logged-in browser only to a path of this site, whatever return_to resolves to (no open redirect)', async () => {
    const user = await createTestUser();
    const cookie = `rally_session=${await startBrowserSession(testEnvironment().db, user.id, LIFETIMES)}`;
    const hostile = [
      '/.//evil.example',
      '/a/..//evil.example',
      '/%2e//evil.example',
      '/%2e%2e//evil.example/x',
      '/%2f%2fevil.example',
      '/%5cevil.example',
      '/%09/evil.example',
    ];
    for (const returnTo of hostile) {
      const response = await goToLogin(returnTo, cookie);
      expect(response.status, returnTo).to.equal(302);
      const location = response.headers.get('location')!;
      expect(new URL(location, PUBLIC_URL).origin, `${returnTo} → ${location}`).to.equal(PUBLIC_URL);
      expect(location, returnTo).to.equal('/account');
    }
    const own = '/p/save-the-park?ref=ada';
    expect((await goToLogin(own, cookie)).headers.get('location')).to.equal(own);
  });

  it('writes no row per anonymous request: the attempt is sealed into the login cookie', async () => {
    const { db } = testEnvironment();
    const rows = () => db.oneFirst(sql.type(z.object({ count: z.number() }))`SELECT count(*)::int AS count FROM browser_login_attempts`);
    const before = await rows();
    const cookies = new Set<string>();
    for (let request = 0; request < 30; request++) {
      const response = await goToLogin('/p/save-the-park');
      expect(response.status).to.equal(302);
      const login = response.headers.getSetCookie().find((cookie) => cookie.startsWith('rally_login='));
      expect(login).to.match(/;\s*HttpOnly/i);
      cookies.add(login!.split(';')[0]!);
    }
    expect(await rows()).to.equal(before);
    expect(cookies.size, 'a fresh attempt each time').to.equal(30);
    // What the cookie holds is sealed: neither the return path nor anything else is readable in it.
    for (const cookie of cookies) expect(Buffer.from(cookie.split('=')[1]!, 'base64url').toString('latin1')).to.not.include('save-the-park');
  });
});
