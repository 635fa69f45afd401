// The authenticator with a stand-in pool that counts queries: what a caller cycling through
// made-up API keys costs the database.
import { expect } from 'chai';
import type { DatabasePool } from 'slonik';
import { createAuthenticator } from '../../../api/http/authenticate.ts';
import type { RallyContext } from '../../../api/http/context.ts';
import { generateApiKey } from '../../../core/api-keys/secrets.ts';
import type { AccessTokenVerifier } from '../../../core/auth/access-tokens.ts';
import type { RevocationList } from '../../../core/auth/revocation-list.ts';
import type { UserDirectory } from '../../../core/users/directory.ts';

function setUp() {
  let queries = 0;
  const db = { maybeOne: async () => ((queries += 1), null) } as unknown as DatabasePool;
  const authenticate = createAuthenticator({
    db,
    verifyAccessToken: (async () => {
      throw new Error('not a JWT test');
    }) as unknown as AccessTokenVerifier,
    revocations: {} as RevocationList,
    users: {} as UserDirectory,
  });
  const presenting = (credential: string) =>
    ({ get: (name: string) => (name === 'Authorization' ? `Bearer ${credential}` : ''), set() {} }) as unknown as RallyContext;
  return { authenticate, presenting, queries: () => queries };
}

describe('API key authentication (api/http/authenticate.ts)', () => {
  it('answers 401 invalid_api_key for a key that was never issued', async () => {
    const { authenticate, presenting } = setUp();
    const refused = await authenticate(presenting(generateApiKey('live').raw)).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).to.have.property('code', 'invalid_api_key');
    expect(refused).to.have.property('status', 401);
  });

  it('looks an invalid key up once, then answers from its negative cache', async () => {
    const { authenticate, presenting, queries } = setUp();
    const madeUp = generateApiKey('live').raw;
    for (let attempt = 0; attempt < 5; attempt += 1) await authenticate(presenting(madeUp)).catch(() => undefined);
    expect(queries()).to.equal(1);
  });

  it('does not query at all for a malformed key', async () => {
    const { authenticate, presenting, queries } = setUp();
    await authenticate(presenting('rally_live_short')).catch(() => undefined);
    expect(queries()).to.equal(0);
  });
});
