// Every relative link and every #anchor in the repository's Markdown resolves, by GitHub's rules:
// the file (or folder) exists inside the repository, and the anchor is a heading's slug or an
// explicit id of the target document. Links to the web are not fetched.
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { anchors, links, markdownFiles, readDocument, ROOT, slug } from '../support/markdown.ts';

const EXTERNAL = /^[a-z][a-z0-9+.-]*:/i; // http:, https:, mailto:, …

/** What is wrong with one link of `file`, or undefined when it resolves. */
async function brokenLink(file: string, target: string): Promise<string | undefined> {
  if (EXTERNAL.test(target)) return undefined;
  const [pathPart = '', anchor] = target.split('#', 2);
  const resolved = pathPart === '' ? path.join(ROOT, file) : path.resolve(ROOT, path.dirname(file), decodeURI(pathPart));
  const relative = path.relative(ROOT, resolved);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return 'leaves the repository';
  if (!existsSync(resolved)) return `${relative} does not exist`;
  if (anchor === undefined || anchor === '') return undefined;
  if (statSync(resolved).isDirectory() || !resolved.endsWith('.md')) return `#${anchor} points into ${relative}, which is not Markdown`;
  const offered = anchors(await readDocument(relative));
  return offered.has(decodeURIComponent(anchor)) ? undefined : `${relative} has no heading with the anchor #${anchor}`;
}

describe('Markdown links', () => {
  it('finds the documents and their links (the scan is looking in the right place)', async () => {
    const files = await markdownFiles();
    expect(files).to.include.members(['README.md', 'CONTRIBUTING.md', 'SECURITY.md', 'docs/architecture.md', 'docs/guides/calling-the-api.md']);
    const readme = links(await readDocument('README.md'));
    expect(readme.map(({ target }) => target)).to.include('docs/guides/calling-the-api.md');
  });

  it('makes anchors as GitHub does', () => {
    expect(slug('Command line (`npx rally`)')).to.equal('command-line-npx-rally');
    expect(slug('Using an external identity provider (Keycloak, Auth0, Dex, …)')).to.equal('using-an-external-identity-provider-keycloak-auth0-dex-');
    expect(slug('Build an app (OAuth 2.0)')).to.equal('build-an-app-oauth-20');
    expect([...anchors('# A\n## Notes\n## Notes\n```\n## not a heading\n```\n')]).to.deep.equal(['a', 'notes', 'notes-1']);
  });

  it('resolve: every relative link names a file in the repository, and every #anchor a heading of it', async () => {
    const broken: string[] = [];
    for (const file of await markdownFiles()) {
      for (const { target, line } of links(await readDocument(file))) {
        const problem = await brokenLink(file, target);
        if (problem) broken.push(`${file}:${line}: ${target} (${problem})`);
      }
    }
    expect(broken).to.deep.equal([]);
  });
});
