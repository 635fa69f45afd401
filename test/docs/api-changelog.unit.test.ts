// The promise about change (issue 47): every change to the committed openapi.json comes with an entry
// of docs/api-changelog.md for integrators. Each entry records the SHA-256 of the document it
// describes; the newest one must be the committed document's, and no two entries may share one.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { DEPRECATIONS, deprecationDates, type Deprecated } from '../../api/http/deprecation.ts';
import { readDocument, ROOT } from '../support/markdown.ts';

const CHANGELOG = 'docs/api-changelog.md';
const HASH_LINE = /^openapi\.json SHA-256: `([0-9a-f]{64})`$/gm;

describe('docs/api-changelog.md', () => {
  it("has an entry for the committed openapi.json: the newest entry records the document's SHA-256", async () => {
    const committed = createHash('sha256')
      .update(await readFile(path.join(ROOT, 'openapi.json')))
      .digest('hex');
    const recorded = [...(await readDocument(CHANGELOG)).matchAll(HASH_LINE)].map((match) => match[1]);
    expect(recorded, `${CHANGELOG} records no document`).to.not.be.empty;
    expect(
      recorded[0],
      `openapi.json changed since the newest entry of ${CHANGELOG}: add an entry above it that says what changed for integrators, ` +
        `with the line "openapi.json SHA-256: \`${committed}\`"`,
    ).to.equal(committed);
    expect(new Set(recorded).size, 'an entry records a document another entry already describes').to.equal(recorded.length);
  });

  it('is linked from the versioning guide, which names the deprecation headers and the 12-month window', async () => {
    const guide = await readDocument('docs/guides/versioning.md');
    expect(guide).to.include('](../api-changelog.md)');
    for (const promise of ['**`Deprecation`**', '**`Sunset`**', '12 months after the next one is released', 'X-API-Version: 1']) {
      expect(guide, promise).to.include(promise);
    }
  });

  it("lists every deprecation with the day it was announced and its Sunset 12 months later, as Rally's answers send them", async () => {
    const guide = await readDocument('docs/guides/versioning.md');
    for (const what of Object.keys(DEPRECATIONS) as Deprecated[]) {
      const { deprecatedAt, sunsetAt } = deprecationDates(what);
      const day = (date: Date) => date.toISOString().slice(0, 10);
      expect(guide, what).to.include(`| ${day(deprecatedAt)} | ${day(sunsetAt)} |`);
    }
  });
});
