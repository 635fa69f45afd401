// Idempotency-Key on POST, as Stripe does it: the first request with a key claims a row before its handler runs, and its answer is stored for 24 hours and
// replayed for retries of the same request; the same key with another body is a 422, a retry while the first still runs a 409. Which routes take a key is their
// declaration's business (route.ts `idempotent`); login and token routes do not.
import { createHmac } from 'node:crypto';
import type { Middleware } from 'koa';
import type { DatabasePool } from 'slonik';
import { sql } from '../../db/sql.ts';
import { z } from 'zod';
import { RallyError, type ProblemSlug } from './problem.ts';
import { meta, type RallyContext, type RallyState } from './context.ts';
import { rememberAnswerStatement, type RememberAnswer } from '../../core/idempotency/remembered-answers.ts';

// A claim left behind by a killed process is taken over after CLAIM_TIMEOUT so the key is not stuck.
const CLAIM_TIMEOUT_SECONDS = 60;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

const StoredResponse = z.object({
  request_fingerprint: z.string(),
  response_status: z.number().nullable(),
  response_headers: z.record(z.string(), z.string()).nullable(),
  response_body: z.string().nullable(),
  response_withheld: z.boolean(),
});

const ClaimRow = z.object({ claimed: z.literal(true) });

// Headers worth replaying: the ones a handler sets to describe what it created.
const REPLAYED_HEADERS = ['location', 'content-type', 'deprecation', 'sunset'];

// Fingerprints are HMACs under a server key, so a stored fingerprint of a request carrying a password cannot be
// tested against guesses.
function fingerprint(key: Buffer | string, method: string, path: string, body: unknown): string {
  return createHmac('sha256', key)
    .update(`${method} ${path}\n${JSON.stringify(body ?? null)}`)
    .digest('hex');
}

export type IdempotencyOptions = { revealsSecret: boolean };

/** The id of what an answer `{ data: { id } }` created, kept in place of an answer that is withheld. */
function createdId(body: unknown): string | null {
  const id = (body as { data?: { id?: unknown } } | null)?.data?.id;
  return typeof id === 'string' ? id : null;
}

function callerKey(ctx: RallyContext): string {
  const principal = ctx.state.principal;
  if (!principal) return `ip:${ctx.state.clientIp}`;
  return principal.apiKeyId ? `api_key:${principal.apiKeyId}` : `user:${principal.userId}`;
}

// An answer that shows a secret once (`revealsSecret`) is not stored: a retry learns the created resource's id,
// never the secret.
export function createIdempotencyMiddleware(
  deps: { db: DatabasePool; ttlMs: number; fingerprintKey: Buffer | string } & Partial<IdempotencyOptions>,
): Middleware<RallyState> {
  const ttlSeconds = Math.round(deps.ttlMs / 1000);

  return async function applyIdempotencyKey(ctx, next) {
    const key = ctx.get('Idempotency-Key');
    if (key === '') return next();
    if (!KEY_PATTERN.test(key)) {
      throw new RallyError('bad-request', 'Idempotency-Key must be 1 to 255 visible ASCII characters.', { code: 'invalid_idempotency_key' });
    }
    const caller = callerKey(ctx);
    const requestFingerprint = fingerprint(deps.fingerprintKey, ctx.method, ctx.path, (ctx.request as { body?: unknown }).body);

    // Claim the key, or take over one that expired or whose first request died mid-flight.
    const claim = await deps.db.maybeOne(sql.type(ClaimRow)`
      INSERT INTO idempotency_keys (caller_key, idempotency_key, request_method, request_path, request_fingerprint, expires_at)
      VALUES (${caller}, ${key}, ${ctx.method}, ${ctx.path}, ${requestFingerprint}, now() + make_interval(secs => ${ttlSeconds}))
      ON CONFLICT ON CONSTRAINT idempotency_keys_pkey DO UPDATE
        SET request_method = EXCLUDED.request_method, request_path = EXCLUDED.request_path,
            request_fingerprint = EXCLUDED.request_fingerprint, response_status = NULL, response_headers = NULL,
            response_body = NULL, response_withheld = false, created_at = now(), expires_at = EXCLUDED.expires_at
        WHERE idempotency_keys.expires_at < now()
           OR (idempotency_keys.response_status IS NULL
               AND idempotency_keys.request_fingerprint = EXCLUDED.request_fingerprint
               AND idempotency_keys.created_at < now() - make_interval(secs => ${CLAIM_TIMEOUT_SECONDS}))
      RETURNING true AS claimed
    `);

    if (!claim) return replayStoredResponse(ctx, deps.db, caller, key, requestFingerprint);

    ctx.state.idempotency = { callerKey: caller, key };
    // A failed request may be retried with the same key: release the claim, unless the write
    // committed its answer before the failure (that answer is what the retry must get).
    const release = () =>
      deps.db.query(sql.typeAlias('void')`
      DELETE FROM idempotency_keys WHERE caller_key = ${caller} AND idempotency_key = ${key} AND response_status IS NULL`);
    try {
      await next();
    } catch (error) {
      await release();
      throw error;
    }
    if (ctx.status >= 500) {
      await release();
      return;
    }
    const headers = Object.fromEntries(REPLAYED_HEADERS.filter((name) => ctx.response.get(name)).map((name) => [name, String(ctx.response.get(name))]));
    const withheld = deps.revealsSecret === true && ctx.status < 300;
    const kept = withheld ? { id: createdId(ctx.body) } : ctx.body;
    const body = kept === undefined || kept === null ? null : JSON.stringify(kept);
    await deps.db.query(sql.typeAlias('void')`
      UPDATE idempotency_keys
      SET response_status = ${ctx.status}, response_headers = ${sql.jsonb(headers)}, response_body = ${body}, response_withheld = ${withheld}
      WHERE caller_key = ${caller} AND idempotency_key = ${key}
    `);
  };
}

/**
 * For a handler whose write stores its own answer: the RememberAnswer to pass to the domain, which
 * stores `{ data, meta }` with `status` (as sendData would answer) in the write's statement. Undefined
 * without an Idempotency-Key. The answer stored after the handler returns replaces it, as usual.
 * A write may store its answer itself, in its own statement (core/idempotency/remembered-answers.ts), so that
 * an answer lost with a killed process is still replayed; a claim whose answer was stored that way is never
 * released.
 */
export function rememberAnswer(ctx: RallyContext, status: number): RememberAnswer | undefined {
  const ticket = ctx.state.idempotency;
  if (!ticket) return undefined;
  const envelopeMeta = meta(ctx);
  return (data) =>
    rememberAnswerStatement(ticket, {
      status,
      headers: {},
      data,
      envelope: (stored) => sql.fragment`jsonb_build_object('data', ${stored}, 'meta', ${sql.jsonb(envelopeMeta)})`,
    });
}

async function replayStoredResponse(ctx: RallyContext, db: DatabasePool, caller: string, key: string, requestFingerprint: string) {
  const stored = await db.maybeOne(sql.type(StoredResponse)`
    SELECT request_fingerprint, response_status, response_headers, response_body, response_withheld
    FROM idempotency_keys WHERE caller_key = ${caller} AND idempotency_key = ${key}
  `);
  const reject = (slug: ProblemSlug, detail: string, headers?: Record<string, string>, extensions?: Record<string, unknown>) => {
    throw new RallyError(slug, detail, { headers, extensions });
  };
  if (!stored) return reject('idempotency-key-in-use', 'A request with this Idempotency-Key just finished failing; retry.', { 'Retry-After': '1' });
  if (stored.request_fingerprint !== requestFingerprint) {
    return reject('idempotency-key-reused', 'This Idempotency-Key was used for a different request. Use a new key for a new request.');
  }
  if (stored.response_status === null) {
    return reject('idempotency-key-in-use', 'A request with this Idempotency-Key is still being processed. Retry shortly.', { 'Retry-After': '1' });
  }
  if (stored.response_withheld) {
    const { id } = JSON.parse(stored.response_body ?? '{}') as { id?: string | null };
    const location = stored.response_headers?.location;
    return reject(
      'idempotency-secret-not-replayable',
      `The first request with this Idempotency-Key succeeded${id ? ` and created ${id}` : ''}; its answer showed a secret once and is not kept.`,
      location ? { 'Content-Location': location } : undefined,
      { resource_id: id ?? null },
    );
  }
  ctx.status = stored.response_status;
  for (const [name, value] of Object.entries(stored.response_headers ?? {})) ctx.set(name, value);
  ctx.set('Idempotent-Replayed', 'true');
  ctx.body = stored.response_body === null ? null : JSON.parse(stored.response_body);
}
