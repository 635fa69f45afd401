// Every example in openapi.json is one the API would accept or send (Ajv, with the API's formats,
// validates each against its schema), and none is filler (issue 47): no "text", no example that
// repeats its field's name, no API key in a format Rally does not issue.
import { readFile } from 'node:fs/promises';
import { Ajv } from 'ajv';
import { expect } from 'chai';
import { isWellFormedApiKey } from '../../core/api-keys/secrets.ts';
import { addFormats } from '../../api/http/validation.ts';

const TEXT = await readFile(new URL('../../openapi.json', import.meta.url), 'utf8');
// References to named schemas, as Ajv finds them: in one schema holding them all under $defs.
const DOCUMENT = JSON.parse(TEXT.replaceAll('"#/components/schemas/', '"urn:rally:schemas#/$defs/')) as Record<string, any>;
const EXAMPLES = DOCUMENT.components.examples as Record<string, { value: unknown }>;

type Found = { where: string; schema: object; example: unknown; name?: string };

/** Every example with the schema it is for and the name of the field or parameter it stands for. */
function examplesIn(node: unknown, where: string, found: Found[] = []): Found[] {
  if (Array.isArray(node)) node.forEach((item, index) => examplesIn(item, `${where}/${index}`, found));
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return found;
  const value = node as Record<string, any>;
  // A schema's own `examples` (JSON Schema: a list), checked against the schema itself.
  if (Array.isArray(value.examples)) for (const example of value.examples) found.push({ where, schema: value, example });
  // A parameter's or a media type's `example`, or its `examples` map, against its `schema`.
  if (value.schema && 'example' in value) found.push({ where, schema: value.schema, example: value.example, name: value.name });
  if (value.schema && value.examples && !Array.isArray(value.examples)) {
    for (const [key, entry] of Object.entries(value.examples as Record<string, { $ref?: string; value?: unknown }>)) {
      const example = entry.$ref ? EXAMPLES[entry.$ref.split('/').pop()!]!.value : entry.value;
      found.push({ where: `${where}/examples/${key}`, schema: value.schema, example });
    }
  }
  for (const [key, child] of Object.entries(value)) {
    if (key === 'properties' && child && typeof child === 'object') {
      for (const [property, schema] of Object.entries(child as Record<string, any>)) {
        for (const example of [...(schema.examples ?? []), ...('example' in schema ? [schema.example] : [])])
          found.push({ where: `${where}/properties/${property}`, schema, example, name: property });
        examplesIn(schema, `${where}/properties/${property}`, found);
      }
    } else if (key !== 'examples' && key !== 'example') examplesIn(child, `${where}/${key}`, found);
  }
  return found;
}

const FOUND = examplesIn({ paths: DOCUMENT.paths, webhooks: DOCUMENT.webhooks, components: DOCUMENT.components }, '#');

/** Every string inside a value. */
const stringsOf = (value: unknown): string[] =>
  typeof value === 'string' ? [value] : value && typeof value === 'object' ? Object.values(value).flatMap(stringsOf) : [];

describe('the examples of openapi.json', () => {
  it('are there: hundreds of them, across operations, webhooks and schemas', () => {
    expect(FOUND.length).to.be.above(500);
  });

  it('each validates against its schema', () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ $id: 'urn:rally:schemas', $defs: DOCUMENT.components.schemas });
    const broken = FOUND.flatMap(({ where, schema, example }) => {
      const validate = ajv.compile(schema);
      return validate(example) ? [] : [`${where}: ${JSON.stringify(example)} ${ajv.errorsText(validate.errors)}`];
    });
    expect(broken).to.deep.equal([]);
  });

  it('are never the placeholder "text", nor the name of their own field', () => {
    const filler = FOUND.filter(({ example, name }) => {
      const strings = stringsOf(example);
      const named = name !== undefined && (example === name || example === name.replaceAll('_', ' '));
      return named || strings.some((text) => text.trim().toLowerCase() === 'text');
    });
    expect(filler.map(({ where, example }) => `${where}: ${JSON.stringify(example)}`)).to.deep.equal([]);
  });

  it('show API keys only in the format Rally issues (rally_live_ or rally_test_)', () => {
    const keys = FOUND.flatMap(({ where, example }) =>
      stringsOf(example)
        .filter((text) => /(^|[^A-Za-z0-9])[a-z]+_(live|test)_/.test(text))
        .map((text) => ({ where, text })),
    );
    expect(keys.length, 'the API key examples').to.be.above(0);
    // A displayed prefix is the start of a key; a whole key is well-formed.
    const foreign = keys.filter(({ text }) => !(isWellFormedApiKey(text) || /^rally_(live|test)_[A-Za-z0-9_-]{1,42}$/.test(text)));
    expect(foreign.map(({ where, text }) => `${where}: ${text}`)).to.deep.equal([]);
  });
});
