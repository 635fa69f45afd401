// The response contract against a real Koa context, without a server: a handler's answer passes
// through the check as it would in the API.
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { Type } from '@sinclair/typebox';
import { expect } from 'chai';
import Koa from 'koa';
import type { RallyContext } from '../../../api/http/context.ts';
import { createResponseCheck, ResponseContractError } from '../../../api/http/response-check.ts';
import { defineRoute } from '../../../api/http/route.ts';
import type { Logger } from '../../../platform/logger.ts';

const Thing = Type.Object({ data: Type.Object({ id: Type.String(), name: Type.String() }) });
const route = defineRoute({
  method: 'get',
  path: '/things/:id',
  operationId: 'getThing',
  summary: 'A thing',
  tag: 'Things',
  auth: 'none',
  responses: { 200: { description: 'The thing', schema: Thing }, 204: { description: 'Nothing' } },
  async handler() {},
});

function context(): RallyContext {
  const app = new Koa();
  const req = new IncomingMessage(new Socket());
  return app.createContext(req, new ServerResponse(req)) as unknown as RallyContext;
}

async function answer(strict: boolean, status: number, body: unknown, log?: Logger, compiled = false) {
  const ctx = context();
  const warnings: unknown[] = [];
  const logger: Logger = log ?? { info() {}, error() {}, warn: (...args: unknown[]) => void warnings.push(args) };
  await createResponseCheck({ strict, log: logger, compiled })(route)(ctx, async () => {
    ctx.status = status;
    ctx.body = body;
  });
  return { ctx, warnings };
}

describe('response contract (api/http/response-check.ts)', () => {
  it('strips fields the schema does not name, in every mode', async () => {
    for (const strict of [true, false]) {
      const { ctx } = await answer(strict, 200, { data: { id: 'a', name: 'A', secret_hash: 'x' }, internal: 1 });
      expect(ctx.body).to.deep.equal({ data: { id: 'a', name: 'A' } });
    }
  });

  it('leaves the object the handler answered untouched (it may be shared)', async () => {
    const shared = { data: { id: 'a', name: 'A', extra: true } };
    await answer(true, 200, shared);
    expect(shared.data).to.have.property('extra', true);
  });

  it('in test mode refuses a body its schema refuses', async () => {
    const refused = await answer(true, 200, { data: { id: 'a' } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).to.be.instanceOf(ResponseContractError);
    expect((refused as Error).message)
      .to.include('getThing')
      .and.include('name');
  });

  it('in test mode refuses a status the route does not declare', async () => {
    const refused = await answer(true, 201, { data: { id: 'a', name: 'A' } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).to.be.instanceOf(ResponseContractError);
    expect((refused as Error).message).to.include('201');
  });

  it('outside test mode logs a refused body instead of failing the request', async () => {
    const { ctx, warnings } = await answer(false, 200, { data: { id: 'a', other: 1 } });
    expect(warnings).to.have.length(1);
    expect(ctx.body).to.deep.equal({ data: { id: 'a' } });
  });

  it('accepts a declared status without a body', async () => {
    const { ctx } = await answer(true, 204, undefined);
    expect(ctx.status).to.equal(204);
  });

  it('answers a frozen data object repeated across answers exactly as the first time: stripped, in a stripped envelope', async () => {
    const check = createResponseCheck({ strict: true, log: { info() {}, error() {}, warn() {} } })(route);
    const data = Object.freeze({ id: 'a', name: 'A', secret_hash: 'x' });
    for (const internal of [1, 2]) {
      const ctx = context();
      await check(ctx, async () => {
        ctx.status = 200;
        ctx.body = { data, internal };
      });
      expect(Buffer.isBuffer(ctx.body) ? JSON.parse(ctx.body.toString()) : ctx.body).to.deep.equal({ data: { id: 'a', name: 'A' } });
      expect(ctx.type).to.equal('application/json');
    }
  });

  it('in production writes an answer once, from its schema: stripped, typed as JSON; one it cannot vouch for still gets the full check', async () => {
    const { ctx } = await answer(false, 200, { data: { id: 'a', name: 'A', secret_hash: 'x' }, internal: 1 }, undefined, true);
    expect(ctx.body).to.equal('{"data":{"id":"a","name":"A"}}');
    expect(ctx.type).to.equal('application/json');
    const refused = await answer(false, 200, { data: { id: 'a', name: 7 } }, undefined, true);
    expect(refused.warnings).to.have.length(1);
    expect(refused.ctx.body).to.deep.equal({ data: { id: 'a', name: 7 } });
  });
});
