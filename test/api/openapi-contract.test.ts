// What openapi.json promises an integrator beyond passing the linter (issue 47): non-JSON bodies described, both OAuth flows,
// no route of Rally's own pages, shared answers and schemas written once (at most half its old size), every schema
// described, and summaries that are short titles whose descriptions say more.
import { readFile } from 'node:fs/promises';
import { expect } from 'chai';

type Operation = {
  summary: string;
  description: string;
  requestBody?: { content: Record<string, unknown> };
  responses: Record<string, { $ref?: string; description?: string; content?: Record<string, unknown> }>;
};
type Document = {
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, { post: Operation }>;
  components: { schemas: Record<string, { description?: string }>; responses: Record<string, unknown>; securitySchemes: Record<string, any> };
};

const TEXT = await readFile(new URL('../../openapi.json', import.meta.url), 'utf8');
const DOCUMENT = JSON.parse(TEXT) as Document;
const OPERATIONS = Object.entries(DOCUMENT.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({ where: `${method.toUpperCase()} ${path}`, path, operation })),
);
/** An answer as written, or the shared answer its reference names. */
const answer = (response: { $ref?: string; content?: Record<string, unknown> }) =>
  (response.$ref ? DOCUMENT.components.responses[response.$ref.replace('#/components/responses/', '')] : response) as { content?: Record<string, unknown> };
const EVERY = [...OPERATIONS, ...Object.entries(DOCUMENT.webhooks).map(([name, entry]) => ({ where: `webhook ${name}`, path: name, operation: entry.post }))];

describe('the contract of openapi.json', () => {
  it('describes the OAuth endpoints’ bodies, form-encoded and JSON', () => {
    for (const path of ['/oauth/token', '/oauth/revoke', '/oauth/introspect']) {
      const content = DOCUMENT.paths[path]!.post!.requestBody?.content ?? {};
      expect(Object.keys(content), path).to.have.members(['application/x-www-form-urlencoded', 'application/json']);
    }
  });

  it('describes the upload’s body as the image bytes of each accepted type', () => {
    const content = DOCUMENT.paths['/v1/media/uploads/{id}']!.put!.requestBody?.content ?? {};
    expect(Object.keys(content)).to.have.members(['image/jpeg', 'image/png', 'image/webp', 'image/gif']);
  });

  it('has the client-credentials flow in the oauth2 scheme, with the scopes of the code flow', () => {
    const flows = DOCUMENT.components.securitySchemes.oauth2.flows;
    expect(flows.clientCredentials.tokenUrl).to.match(/\/oauth\/token$/);
    expect(Object.keys(flows.clientCredentials.scopes)).to.have.length.above(0).and.to.deep.equal(Object.keys(flows.authorizationCode.scopes));
  });

  it('leaves out the routes of Rally’s own pages and forms', () => {
    // The consent screen of /oauth/authorize is the protocol's; a problem's `type` resolves to its page.
    const pages = OPERATIONS.filter(({ path, operation }) => {
      const answers = Object.values(operation.responses).flatMap((response) => Object.keys(answer(response).content ?? {}));
      const forms = Object.keys(operation.requestBody?.content ?? {}).includes('application/x-www-form-urlencoded') && !path.startsWith('/oauth/');
      return forms || (answers.some((type) => type === 'text/html' || type === 'text/javascript') && !['/oauth/authorize', '/problems/{slug}'].includes(path));
    });
    expect(pages.map(({ where }) => where)).to.deep.equal([]);
  });

  it('writes an answer that operations give in the same form once, in components/responses, each use with its own description', () => {
    expect(Object.keys(DOCUMENT.components.responses)).to.include.members(['ClientProblem', 'ServerProblem', 'TooManyRequests', 'NotFound']);
    const inline = OPERATIONS.flatMap(({ operation }) =>
      Object.entries(operation.responses)
        .filter(([, response]) => !response.$ref)
        .map(([status, { description: _description, ...form }]) => JSON.stringify([form.content ? '' : status, form])),
    );
    const repeated = inline.filter((form, index) => inline.indexOf(form) !== index);
    expect(repeated).to.deep.equal([]);
    const notFound = DOCUMENT.paths['/v1/petitions/{id}/analytics']!.get!.responses['404'];
    expect(notFound).to.deep.equal({ $ref: '#/components/responses/NotFound', description: 'No such petition' });
  });

  it('names every object schema it uses twice instead of writing it inline again', () => {
    const places = new Map<string, string[]>();
    const visit = (value: unknown, where: string): void => {
      if (typeof value !== 'object' || value === null) return;
      const schema = value as { type?: string; properties?: object };
      if (schema.type === 'object' && schema.properties && where.includes('/')) {
        places.set(JSON.stringify(schema), [...(places.get(JSON.stringify(schema)) ?? []), where]);
      }
      for (const [key, item] of Object.entries(value)) visit(item, `${where}/${key}`);
    };
    for (const [name, schema] of Object.entries(DOCUMENT.components.schemas)) visit(schema, name);
    expect([...places.values()].filter((uses) => uses.length > 1)).to.deep.equal([]);
  });

  it('is at most half the 1,718,705 bytes it had when its error answers were copied inline, written with two spaces per level', () => {
    expect(TEXT).to.equal(`${JSON.stringify(DOCUMENT, null, 2)}\n`);
    expect(Buffer.byteLength(TEXT)).to.be.at.most(1_718_705 / 2);
  });

  it('describes every schema', () => {
    const bare = Object.entries(DOCUMENT.components.schemas).filter(([, schema]) => !schema.description?.trim());
    expect(bare.map(([name]) => name)).to.deep.equal([]);
  });

  it('has summaries that are short titles, and descriptions that say more than the summary', () => {
    for (const { where, operation } of EVERY) {
      expect(operation.summary.split(/\s+/).length, `${where}: "${operation.summary}"`).to.be.at.most(6);
      expect(operation.summary, where).to.not.match(/[.;:]$/);
      const lead = operation.description.split('\n\n')[0]!.replace(/\.$/, '');
      expect(lead.toLowerCase(), `${where}: the description only repeats the summary`).to.not.equal(operation.summary.toLowerCase());
    }
  });
});
