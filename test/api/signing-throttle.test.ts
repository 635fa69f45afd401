// The signing throttle beyond the per-address limit (issue 11): signatures are also counted per
// network block (/24 of IPv4, /64 of IPv6) and per email domain of the signer, each refused with a
// 429 problem and Retry-After past its hourly number. Every test signs from addresses and domains
// of its own, so the buckets it fills (shared by all API processes) are nobody else's.
import { expect } from 'chai';
import { randomInt, randomUUID } from 'node:crypto';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login } from '../support/identity.ts';
import { createPetitionRow } from '../support/events.ts';
import { startApi, type RunningApi } from '../support/processes.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

const PER_BLOCK = 2;
const PER_DOMAIN = 2;

/** A /24 of the shared address space (100.64.0.0/10) nobody else in the suite signs from. */
const freshIpv4Block = () => `100.${64 + randomInt(64)}.${randomInt(256)}`;
const freshIpv6Block = () => `2001:db8:${randomInt(0x10000).toString(16)}:${randomInt(0x10000).toString(16)}`;

describe('POST /v1/petitions/{id}/signatures: the signing throttle per network block and email domain', function () {
  this.timeout(120_000);
  let api: RunningApi;
  let creatorId: string;
  /** An active petition, made as a row: publishing needs a worker, which nothing else here does. */
  const activePetition = async () => ({ id: await createPetitionRow(creatorId, 'A petition for the signing throttle tests') });

  before(async () => {
    // The per-address limit stays out of reach (test default); the block and domain limits are tiny.
    api = await startApi({
      RALLY_TASK_QUEUE: uniqueTaskQueue('sign-throttle'),
      RALLY_TRUST_PROXY: 'true',
      RALLY_SIGN_LIMIT_PER_BLOCK_PER_HOUR: String(PER_BLOCK),
      RALLY_SIGN_LIMIT_PER_DOMAIN_PER_HOUR: String(PER_DOMAIN),
    });
    creatorId = (await createTestUser()).id;
  });
  after(async () => {
    await api?.stop();
  });

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

  it('answers 429 sign_block_limit with Retry-After past RALLY_SIGN_LIMIT_PER_BLOCK_PER_HOUR from one /24, while another /24 still signs', async () => {
    const petition = await activePetition();
    const [a, b, c, d] = await signers(4);
    const block = freshIpv4Block();
    const statuses = [(await sign(petition.id, a!, `${block}.10`)).status, (await sign(petition.id, b!, `${block}.11`)).status];
    expect(statuses).to.deep.equal([201, 201]);
    const refused = await sign(petition.id, c!, `${block}.250`);
    expect(refused.status).to.equal(429);
    expect(refused.contentType).to.match(/^application\/problem\+json/);
    expect(refused.body.code).to.equal('sign_block_limit');
    expect(Number(refused.retryAfter)).to.be.at.least(1);
    expect((await sign(petition.id, d!, `${freshIpv4Block()}.10`)).status).to.equal(201);
  });

  it('counts IPv6 signers by their /64', async () => {
    const petition = await activePetition();
    const [a, b, c, d] = await signers(4);
    const block = freshIpv6Block();
    expect((await sign(petition.id, a!, `${block}:0:0:0:1`)).status).to.equal(201);
    expect((await sign(petition.id, b!, `${block}:ffff:1:2:3`)).status).to.equal(201);
    const refused = await sign(petition.id, c!, `${block}::beef`);
    expect([refused.status, refused.body.code]).to.deep.equal([429, 'sign_block_limit']);
    expect((await sign(petition.id, d!, `${freshIpv6Block()}::1`)).status).to.equal(201);
  });

  it('answers 429 sign_domain_limit past RALLY_SIGN_LIMIT_PER_DOMAIN_PER_HOUR for accounts of one email domain (any case) from any network', async () => {
    const petition = await activePetition();
    const domain = `farm-${randomUUID().slice(0, 8)}.test`;
    const [a, b] = await signers(2, domain);
    const [c] = await signers(1, domain.toUpperCase());
    const [other] = await signers(1);
    expect((await sign(petition.id, a!, `${freshIpv4Block()}.1`)).status).to.equal(201);
    expect((await sign(petition.id, b!, `${freshIpv4Block()}.1`)).status).to.equal(201);
    // The third account of the domain, spelled in capitals, from yet another network.
    const refused = await sign(petition.id, c!, `${freshIpv4Block()}.1`);
    expect([refused.status, refused.body.code]).to.deep.equal([429, 'sign_domain_limit']);
    expect(Number(refused.retryAfter)).to.be.at.least(1);
    expect((await sign(petition.id, other!, `${freshIpv4Block()}.1`)).status).to.equal(201);
  });

  it('leaves the open mail providers (RALLY_SIGN_LIMIT_OPEN_DOMAINS, gmail.com by default) to the other limits', async () => {
    const petition = await activePetition();
    const tokens = await signers(PER_DOMAIN + 2, 'GMail.com');
    for (const token of tokens) expect((await sign(petition.id, token, `${freshIpv4Block()}.7`)).status).to.equal(201);
  });
});
