// Guest signing under load (issue 26), through a second API process (signing limits raised: all load comes from one address) and a worker mailing into a folder
// of its own: (a) guest forms submitted per second, (b) confirmations per second on one hot petition. Goals: ≥ 1,000/s each; a count that does not add up makes
// the row INVALID.
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type autocannon from 'autocannon';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { linkToken, tokenHash } from '../../../core/guest-signatures/tokens.ts';
import { createDatabasePool } from '../../../db/pool.ts';
import { sql } from '../../../db/sql.ts';
import { loadConfig } from '../../../platform/config.ts';
import { startExtraApi } from '../environment.ts';
import type { LoadResult } from '../load.ts';
import { measureLoad } from '../load.ts';
import { verdictFor, type BenchEnvironment, type ResultRow, type Scenario } from '../scenario.ts';
import { startRallyWorker, stopRallyWorker } from '../webhook-kit.ts';

const NAME = 'guest-signing';
const MIN_RATE = 1_000;
const UNLIMITED = '1000000000';
// Seeded pending guest signatures per second of load (warm-up included): above any rate this machine reaches.
const SEEDED_PER_SECOND = 4_000;
const MIN_FILL_MS = 3_100;
const DRAIN_TIMEOUT_MS = 300_000;

async function seedPetition(db: DatabasePool, what: string): Promise<{ id: string; slug: string }> {
  const tag = randomUUID().slice(0, 8);
  const userId = await db.oneFirst(sql.type(z.object({ id: z.string() }))`
    INSERT INTO users (identity_issuer, identity_subject, email, display_name, slug)
    VALUES ('bench', ${tag}, ${`guest-owner-${tag}@example.test`}, 'Bench owner', ${`bench-guest-${tag}`}) RETURNING id`);
  const slug = `bench-guest-${what}-${tag}`;
  const id = await db.oneFirst(sql.type(z.object({ id: z.string() }))`
    INSERT INTO petitions (slug, title, description, creator_id, status, visibility)
    VALUES (${slug}, ${`Guest ${what} benchmark petition`}, ${'x'.repeat(60)}, ${userId}, 'active', 'public') RETURNING id`);
  return { id, slug };
}

/** Pending guest signatures whose emails (and reminder) are done with, and the references of their confirmation links. */
async function seedPending(db: DatabasePool, petitionId: string, keyHex: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => randomUUID());
  const tag = randomUUID().slice(0, 8);
  for (let start = 0; start < ids.length; start += 10_000) {
    const slice = ids.slice(start, start + 10_000);
    await db.query(sql.typeAlias('void')`
      INSERT INTO guest_signatures (id, petition_id, email, email_key, display_name, token_hash, expires_at, email_due, emailed_at, reminded_at)
      SELECT id, ${petitionId}, ${`hot-${tag}-`} || (${start} + ordinal) || '@guests.example', ${`hot-${tag}-`} || (${start} + ordinal) || '@guests.example',
        'Bench Guest',
        decode(hash, 'hex'), now() + interval '1 day', false, now(), now()
      FROM unnest(${sql.array(slice, 'uuid')}, ${sql.array(
        slice.map((id) => tokenHash(linkToken(keyHex, id)).toString('hex')),
        'text',
      )}) WITH ORDINALITY AS s(id, hash, ordinal)`);
  }
  return ids.map((id) => `${id}.${linkToken(keyHex, id)}`);
}

async function waitFor(check: () => Promise<boolean>, what: string, log: (line: string) => void): Promise<boolean> {
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  log(`warning: ${what} did not happen within ${DRAIN_TIMEOUT_MS / 1000} s`);
  return false;
}

const row = (result: LoadResult, target: string, exact: boolean): ResultRow => ({
  ...result,
  scenario: NAME,
  target,
  ratio: null,
  goal: `≥ ${MIN_RATE.toLocaleString('en-US')}/s, counts exact`,
  verdict: exact ? verdictFor(result.requestsPerSecond >= MIN_RATE, result) : 'INVALID',
});

// (a) POST /p/{slug}/sign, every request a new address; once the guest-signature-emails workflow has drained,
// exactly one confirmation email written per stored guest signature. (b) POST /signatures/confirm/{reference},
// every request a different pending guest signature, seeded beforehand; then the petition's count is exactly
// the confirmations that answered 200, with exactly as many confirmed rows.
export const scenario: Scenario = {
  name: NAME,
  goal: `guest forms submitted (one email each) and confirmations on one hot petition: ≥ ${MIN_RATE.toLocaleString('en-US')}/s each, counts exact afterwards`,
  async run(env: BenchEnvironment): Promise<ResultRow[]> {
    const db = await createDatabasePool(env.databaseUrl, { maximumPoolSize: 4 });
    const mailDir = await mkdtemp(path.join(tmpdir(), 'rally-bench-guest-mail-'));
    const api = await startExtraApi(env, { RALLY_SIGN_LIMIT_PER_HOUR: UNLIMITED, RALLY_MAIL_DIR: mailDir }, 'api-guest');
    const worker = await startRallyWorker({ ...env, serviceEnv: api.serviceEnv }, `bench-guest-${randomUUID().slice(0, 8)}`);
    try {
      // (a) the form, a new address per request, with a form token old enough to pass the minimum fill time.
      const submit = await seedPetition(db, 'submit');
      const page = await (await fetch(`${api.url}/p/${submit.slug}`)).text();
      const formToken = /name="form_token" value="([^"]+)"/.exec(page)?.[1];
      if (!formToken) throw new Error('the petition page has no guest form');
      await new Promise((resolve) => setTimeout(resolve, MIN_FILL_MS));
      const tag = randomUUID().slice(0, 8);
      let sent = 0;
      const submitting = (request: autocannon.Request): autocannon.Request => {
        request.method = 'POST';
        request.path = `/p/${submit.slug}/sign-by-email`;
        request.headers = { ...request.headers, 'content-type': 'application/x-www-form-urlencoded' };
        request.body = new URLSearchParams({ name: 'Bench Guest', email: `g-${tag}-${sent++}@guests.example`, form_token: formToken }).toString();
        return request;
      };
      const submitted = await measureLoad(`${NAME}: POST /p/{slug}/sign-by-email`, `${api.url}/p/${submit.slug}/sign-by-email`, env.load, env.log, {
        setupRequest: submitting,
      });
      // Exactly one email per stored guest signature: each row mailed, and a file for each in this run's mail folder.
      const tally = () =>
        db.one(sql.type(z.object({ stored: z.number(), mailed: z.number() }))`
          SELECT count(*)::int AS stored, count(*) FILTER (WHERE emailed_at IS NOT NULL AND NOT email_due)::int AS mailed
          FROM guest_signatures WHERE petition_id = ${submit.id}`);
      const mailed = await waitFor(
        async () => {
          const { stored, mailed: done } = await tally();
          // The folder may also get reminders of older runs' guest signatures in this database: at least, not exactly.
          return done === stored && (await readdir(mailDir)).length >= stored;
        },
        'one email per stored guest signature',
        env.log,
      );
      env.log(`${NAME}: ${(await tally()).stored} guest signatures stored, ${(await readdir(mailDir)).length} emails written`);

      // (b) confirmations, each of a different seeded guest signature, all on one petition.
      const hot = await seedPetition(db, 'confirm');
      const keyHex = loadConfig(api.serviceEnv).encryptionKey;
      const references = await seedPending(db, hot.id, keyHex, (env.load.warmupSec + env.load.durationSec) * SEEDED_PER_SECOND);
      let next = 0;
      const confirming = (request: autocannon.Request): autocannon.Request => {
        request.method = 'POST';
        // Past the end a link is confirmed twice: the count then falls short and the row says INVALID.
        request.path = `/signatures/confirm/${references[next++ % references.length]}`;
        return request;
      };
      const confirmed = await measureLoad(`${NAME}: POST /signatures/confirm`, `${api.url}/signatures/confirm/x`, env.load, env.log, {
        setupRequest: confirming,
      });
      const counts = await db.one(sql.type(z.object({ counted: z.number(), rows: z.number(), signatures: z.number() }))`
        SELECT (SELECT COALESCE(sum(count), 0)::int FROM signature_counters WHERE petition_id = ${hot.id}) AS counted,
          (SELECT count(*)::int FROM guest_signatures WHERE petition_id = ${hot.id} AND status = 'confirmed') AS rows,
          (SELECT count(*)::int FROM signatures WHERE petition_id = ${hot.id}) AS signatures`);
      env.log(`${NAME}: ${counts.rows} confirmed, counted ${counts.counted}, ${counts.signatures} signatures`);
      const exact = next <= references.length && counts.counted === counts.rows && counts.rows === counts.signatures;
      // The seeds nobody confirmed (most of them: seeded above any rate) would pile up run after run
      // in the kept bench database, and its vacuums with them: each run leaves only what it confirmed.
      await db.query(sql.typeAlias('void')`DELETE FROM guest_signatures WHERE petition_id = ${hot.id} AND status = 'pending'`);
      return [
        row(submitted, 'POST /p/{slug}/sign (guest forms; emails written)', mailed),
        row(confirmed, 'POST /signatures/confirm (one hot petition)', exact),
      ];
    } finally {
      await stopRallyWorker(worker);
      await api.stop();
      await db.end();
    }
  },
};
