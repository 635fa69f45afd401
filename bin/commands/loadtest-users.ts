// `rally loadtest users --count N`: many users with ready access tokens, for load tests. No password hashing: users are inserted in batches and their tokens
// signed directly with the embedded provider's key, exactly as the provider would sign them; their addresses count as verified, as a signer's must
// (core/signatures/sign.ts). Refused in production.
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { importJWK, SignJWT } from 'jose';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { embeddedIssuer, type Config } from '../../platform/config.ts';
import { loadCurrentSigningKey } from '../../identity-provider/signing-keys.ts';
import { sql } from '../../db/sql.ts';
import { CommandError } from './command-error.ts';

const BATCH_SIZE = 1_000;
const MAX_COUNT = 1_000_000;

export async function createLoadtestUsers(db: DatabasePool, config: Config, args: string[], print: (line: string) => void): Promise<void> {
  if (config.nodeEnv === 'production') throw new CommandError('loadtest users is refused when NODE_ENV=production');
  if (config.identity.issuer) throw new CommandError('loadtest users needs the embedded identity provider (OIDC_ISSUER is set)');
  const { values } = parseArgs({ args, options: { count: { type: 'string' } }, strict: true });
  const count = Number(values.count);
  if (!Number.isInteger(count) || count < 1 || count > MAX_COUNT) throw new CommandError(`--count must be a whole number from 1 to ${MAX_COUNT}`);

  const jwk = await loadCurrentSigningKey(db, config.encryptionKey);
  const key = await importJWK(jwk, jwk.alg ?? 'RS256');
  const issuer = embeddedIssuer(config);
  const lifetimeSeconds = Math.round(config.identity.accessTokenTtlMs / 1000);

  for (let offset = 0; offset < count; offset += BATCH_SIZE) {
    const size = Math.min(BATCH_SIZE, count - offset);
    const subjects = Array.from({ length: size }, () => randomUUID());
    const ids = await db.anyFirst(sql.type(z.object({ id: z.string() }))`
      INSERT INTO users (identity_issuer, identity_subject, email, display_name, slug, email_verified)
      SELECT ${issuer}, subject, 'loadtest-' || subject || '@example.invalid', 'Load test ' || left(subject, 8), 'loadtest-' || subject, true
      FROM unnest(${sql.array(subjects, 'text')}) WITH ORDINALITY AS t(subject, position)
      ORDER BY position
      RETURNING id
    `);
    for (const [index, id] of ids.entries()) {
      const accessToken = await new SignJWT({ scope: 'openid email profile' })
        .setProtectedHeader({ alg: jwk.alg ?? 'RS256', kid: jwk.kid!, typ: 'at+jwt' })
        .setIssuer(issuer)
        .setSubject(subjects[index]!)
        .setAudience(config.publicUrl)
        .setJti(randomUUID())
        .setIssuedAt()
        .setExpirationTime(`${lifetimeSeconds}s`)
        .sign(key);
      print(JSON.stringify({ id, access_token: accessToken }));
    }
  }
}
