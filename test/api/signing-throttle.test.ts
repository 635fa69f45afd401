// The signing throttle beyond the per-address limit (issues 11 and 44): signatures are also counted per network block (/24, /64) and signer's email domain;
// past the hourly threshold a signature is accepted, counted and flagged, and only past the hard ceiling refused (429 signing_limit, Retry-After). The
// administrators' lists block (403) or allow (never flagged).
import { expect } from 'chai';
import { randomInt, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from '../support/environment.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login } from '../support/identity.ts';
import { createPetitionRow, eventually } from '../support/events.ts';
import { startApi, type RunningApi } from '../support/processes.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

const PER_ADDRESS = 3;
const PER_BLOCK = 2;
const PER_DOMAIN = 2;
const CEILING = 4;

/**
 * A /24 of the shared address space (100.64.0.0/10) nobody else in the suite signs from.
 * Every test signs from addresses and domains of its own, so the buckets it fills (shared by all API processes)
 * are nobody else's.
 */
const freshIpv4Block = () => `100.${64 + randomInt(64)}.${randomInt(256)}`;
const freshIpv6Block = () => `2001:db8:${randomInt(0x10000).toString(16)}:${randomInt(0x10000).toString(16)}`;
const Flags = z.object({ flags: z.array(z.string()).nullable() });

describe('POST /v1/petitions/{id}/signatures: the signing throttle per network block and email domain', function () {
  this.timeout(120_000);
  let api: RunningApi;
  let creatorId: string;
  let adminToken: string;
  /** An active petition, made as a row: publishing needs a worker, which nothing else here does. */
  const activePetition = async () => ({ id: await createPetitionRow(creatorId, 'A petition for the signing throttle tests') });

  before(async () => {
    // Tiny thresholds and ceilings, so that each test passes them in a few signatures.
    api = await startApi({
      RALLY_TASK_QUEUE: uniqueTaskQueue('sign-throttle'),
      RALLY_TRUST_PROXY: 'true',
      RALLY_SIGN_LIMIT_PER_HOUR: String(PER_ADDRESS),
      RALLY_SIGN_LIMIT_PER_BLOCK_PER_HOUR: String(PER_BLOCK),
      RALLY_SIGN_LIMIT_PER_DOMAIN_PER_HOUR: String(PER_DOMAIN),
      RALLY_SIGN_CEILING_PER_BLOCK_PER_HOUR: String(CEILING),
      RALLY_SIGN_CEILING_PER_DOMAIN_PER_HOUR: String(CEILING),
    });
    const admin = await createTestUser({ admin: true });
    creatorId = admin.id;
    adminToken = (await login(api.baseUrl, admin)).accessToken;
  });
  after(async () => {
    await api?.stop();
  });

  /** The flags of `petitionId`'s signature from the signer of `signatureId`. */
  const flagsOf = (signatureId: string) => testEnvironment().db.oneFirst(sql.type(Flags)`SELECT flags FROM signatures WHERE id = ${signatureId}`);
  const admin = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(`${api.baseUrl}${route}`, {
      method,
      headers: { 'content-type': 'application/json', ...bearer(adminToken) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: response.status === 204 ? null : await json(response) };
  };

  async function sign(petitionId: string, token: string, address: string) {
    const response = await fetch(`${api.baseUrl}/v1/petitions/${petitionId}/signatures`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Forwarded-For': address, ...bearer(token) },
      body: '{}',
    });
    return {
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      contentType: response.headers.get('content-type'),
      body: await json(response),
    };
  }

  /** Signers whose email addresses are at `domain` (by default one domain of their own each), logged in through the API. */
  async function signers(count: number, domain?: string): Promise<string[]> {
    const tokens: string[] = [];
    for (let index = 0; index < count; index += 1) {
      const at = domain ?? `own-${randomUUID().slice(0, 8)}.test`;
      const user = await createTestUser({ email: `signer.${index}+tag-${randomUUID().slice(0, 6)}@${at}` });
      tokens.push((await login(api.baseUrl, user)).accessToken);
    }
    return tokens;
  }

  it('accepts and counts signatures past RALLY_SIGN_LIMIT_PER_BLOCK_PER_HOUR from one /24, flagged network_block; another /24 is not flagged', async () => {
    const petition = await activePetition();
    const [a, b, c, d] = await signers(4);
    const block = freshIpv4Block();
    const answers = [await sign(petition.id, a!, `${block}.10`), await sign(petition.id, b!, `${block}.11`), await sign(petition.id, c!, `${block}.250`)];
    expect(answers.map((answer) => answer.status)).to.deep.equal([201, 201, 201]);
    expect(answers[2]!.body.data.signature_count).to.equal(3);
    expect(await Promise.all(answers.map((answer) => flagsOf(answer.body.data.id)))).to.deep.equal([null, null, ['network_block']]);
    const elsewhere = await sign(petition.id, d!, `${freshIpv4Block()}.10`);
    expect(await flagsOf(elsewhere.body.data.id)).to.equal(null);
  });

  it('counts IPv6 signers by their /64', async () => {
    const petition = await activePetition();
    const [a, b, c] = await signers(3);
    const block = freshIpv6Block();
    expect((await sign(petition.id, a!, `${block}:0:0:0:1`)).status).to.equal(201);
    expect((await sign(petition.id, b!, `${block}:ffff:1:2:3`)).status).to.equal(201);
    const third = await sign(petition.id, c!, `${block}::beef`);
    expect(third.status).to.equal(201);
    expect(await flagsOf(third.body.data.id)).to.deep.equal(['network_block']);
  });

  it('flags email_domain past RALLY_SIGN_LIMIT_PER_DOMAIN_PER_HOUR for accounts of one email domain (any case) from any network', async () => {
    const petition = await activePetition();
    const domain = `farm-${randomUUID().slice(0, 8)}.test`;
    const [a, b] = await signers(2, domain);
    const [c] = await signers(1, domain.toUpperCase());
    for (const token of [a!, b!]) expect(await flagsOf((await sign(petition.id, token, `${freshIpv4Block()}.1`)).body.data.id)).to.equal(null);
    // The third account of the domain, spelled in capitals, from yet another network.
    const third = await sign(petition.id, c!, `${freshIpv4Block()}.1`);
    expect(third.status).to.equal(201);
    expect(await flagsOf(third.body.data.id)).to.deep.equal(['email_domain']);
  });

  it('refuses with 429 signing_limit and Retry-After past the hard ceiling (RALLY_SIGN_CEILING_PER_BLOCK_PER_HOUR, _PER_DOMAIN_)', async () => {
    const petition = await activePetition();
    const block = freshIpv4Block();
    const tokens = await signers(CEILING + 1);
    const statuses = [];
    for (const [index, token] of tokens.entries()) statuses.push(await sign(petition.id, token, `${block}.${index + 1}`));
    expect(statuses.slice(0, CEILING).map((answer) => answer.status)).to.deep.equal(new Array(CEILING).fill(201));
    const refused = statuses[CEILING]!;
    expect([refused.status, refused.body.code]).to.deep.equal([429, 'signing_limit']);
    expect(refused.contentType).to.match(/^application\/problem\+json/);
    expect(Number(refused.retryAfter)).to.be.at.least(1);

    const domain = `farm-${randomUUID().slice(0, 8)}.test`;
    const members = await signers(CEILING + 1, domain);
    const answers = [];
    for (const token of members) answers.push(await sign(petition.id, token, `${freshIpv4Block()}.1`));
    expect(answers.map((answer) => answer.status)).to.deep.equal([...new Array(CEILING).fill(201), 429]);
    expect(answers[CEILING]!.body.code).to.equal('signing_limit');
  });

  it('refuses a signer on the block-list (network or *. domain) with 403 signing_blocked, never flags an allowed one, and audit-logs the lists', async () => {
    const petition = await activePetition();
    const blocked = freshIpv4Block();
    const added = await admin('POST', '/v1/admin/signing-lists', { list: 'block', subject_type: 'network', subject: `${blocked}.0/24` });
    expect(added.status).to.equal(201);
    const domain = `farm-${randomUUID().slice(0, 8)}.test`;
    await admin('POST', '/v1/admin/signing-lists', { list: 'block', subject_type: 'email_domain', subject: `*.${domain}` });
    const [a, b, c, d, e, f] = await signers(6);
    const [sub] = await signers(1, `mail.${domain}`);
    // Every API process reloads the lists when the database announces a change: within a second or two.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const refused = await sign(petition.id, a!, `${blocked}.9`);
    expect([refused.status, refused.body.code]).to.deep.equal([403, 'signing_blocked']);
    const byDomain = await sign(petition.id, sub!, `${freshIpv4Block()}.1`);
    expect([byDomain.status, byDomain.body.code]).to.deep.equal([403, 'signing_blocked']);

    // An allowed network (a university's NAT, exempt from the per-address limit too) is never flagged.
    const campus = freshIpv4Block();
    const allowed = await admin('POST', '/v1/admin/signing-lists', {
      list: 'allow',
      subject_type: 'network',
      subject: `${campus}.0/24`,
      exempt_address_limit: true,
    });
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const answers = [];
    for (const token of [b!, c!, d!, e!]) answers.push(await sign(petition.id, token, `${campus}.1`));
    expect(answers.map((answer) => answer.status)).to.deep.equal([201, 201, 201, 201]);
    expect(await Promise.all(answers.map((answer) => flagsOf(answer.body.data.id)))).to.deep.equal([null, null, null, null]);

    const list = await admin('GET', '/v1/admin/signing-lists');
    expect(list.body.data.map((entry: { subject: string }) => entry.subject)).to.include.members([`${blocked}.0/24`, `*.${domain}`, `${campus}.0/24`]);
    expect((await admin('DELETE', `/v1/admin/signing-lists/${added.body.data.id}`)).status).to.equal(204);
    const signed = await eventually(
      async () => {
        const answer = await sign(petition.id, f!, `${blocked}.10`);
        return answer.status === 201 ? answer : undefined;
      },
      10_000,
      'the removal taking effect',
    );
    expect(signed.status).to.equal(201);
    const audit = await admin('GET', '/v1/admin/audit-logs?target_type=signing_list_entry&limit=100');
    const actions = audit.body.data.map((entry: { action: string; target_id: string }) => `${entry.action} ${entry.target_id}`);
    expect(actions).to.include.members([
      `signing_list.entry_added ${added.body.data.id}`,
      `signing_list.entry_removed ${added.body.data.id}`,
      `signing_list.entry_added ${allowed.body.data.id}`,
    ]);
  });

  it('answers 422 with the field for a list subject that is not an address, a network or a domain', async () => {
    const cases = [
      ['network', '300.1.2.0/24', 'invalid_address'],
      ['network', '192.0.2.0/33', 'invalid_network'],
      ['address', '192.0.2.0/24', 'invalid_address'],
      ['email_domain', 'not a domain', 'invalid_domain'],
    ] as const;
    for (const [type, subject, code] of cases) {
      const answer = await admin('POST', '/v1/admin/signing-lists', { list: 'block', subject_type: type, subject });
      expect([answer.status, answer.body.errors?.[0]?.field, answer.body.errors?.[0]?.code], subject).to.deep.equal([422, 'subject', code]);
    }
  });

  it('leaves the open mail providers (RALLY_SIGN_LIMIT_OPEN_DOMAINS, gmail.com by default) to the other limits', async () => {
    const petition = await activePetition();
    const tokens = await signers(PER_DOMAIN + 2, 'GMail.com');
    for (const token of tokens) {
      const answer = await sign(petition.id, token, `${freshIpv4Block()}.7`);
      expect(answer.status).to.equal(201);
      expect(await flagsOf(answer.body.data.id)).to.equal(null);
    }
  });
});
