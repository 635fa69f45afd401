// Every repository path a document names in backticks exists, so a renamed folder or file cannot leave the documentation describing what is gone (the README
// once named api/identity-provider/). A span is taken for a path when it has a slash, no spaces or placeholders, and begins with a top-level entry of the
// repository (`core/…`, `docs/…`); media types and URLs do not.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { codeSpans, markdownFiles, readDocument, ROOT } from '../support/markdown.ts';

const TOP_LEVEL = new Set(readdirSync(ROOT).filter((name) => !['node_modules', '.git', '.data', 'dist'].includes(name)));
const PLACEHOLDER = /[\s<>{}*$…~|?]/;

/** The repository path a code span names, or undefined when it is not one. */
function repositoryPath(span: string): string | undefined {
  if (PLACEHOLDER.test(span) || !span.includes('/') || span.startsWith('/')) return undefined;
  const trimmed = span.replace(/[.,;:]$/, '');
  return TOP_LEVEL.has(trimmed.split('/')[0]!) ? trimmed : undefined;
}

describe('repository paths named in the documentation', () => {
  it('takes for paths only what starts inside the repository', () => {
    expect(repositoryPath('core/vocabulary.ts')).to.equal('core/vocabulary.ts');
    expect(repositoryPath('api/http/')).to.equal('api/http/');
    expect(repositoryPath('application/problem+json')).to.equal(undefined);
    expect(repositoryPath('/v1/petitions')).to.equal(undefined);
    expect(repositoryPath('core/<aggregate>/')).to.equal(undefined);
    expect(repositoryPath('npm run api')).to.equal(undefined);
  });

  it('exist', async () => {
    const missing: string[] = [];
    let checked = 0;
    for (const file of await markdownFiles()) {
      for (const { span, line } of codeSpans(await readDocument(file))) {
        const named = repositoryPath(span);
        if (named === undefined) continue;
        checked += 1;
        if (!existsSync(path.join(ROOT, named))) missing.push(`${file}:${line}: ${named}`);
      }
    }
    expect(checked, 'paths checked').to.be.greaterThan(100);
    expect(missing).to.deep.equal([]);
  });
});
