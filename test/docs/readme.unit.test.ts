// The README is a front door: short enough to read at once (issue 30: at most about 250 lines), with
// the two commands, a first API call, where to go next for each audience, status and license. The rest
// lives under docs/, in CONTRIBUTING.md and in SECURITY.md, where the other documentation tests keep it true.
import { expect } from 'chai';
import { anchors, links, readDocument } from '../support/markdown.ts';

describe('README.md', () => {
  it('has at most 250 lines', async () => {
    const lines = (await readDocument('README.md')).trimEnd().split('\n').length;
    expect(lines, 'move the detail into the guide of its audience under docs/').to.be.at.most(250);
  });

  it('has the parts of a front door', async () => {
    const offered = anchors(await readDocument('README.md'));
    expect([...offered]).to.include.members(['quick-start', 'a-first-api-call', 'where-to-go-next', 'status', 'license']);
  });

  it('points to a guide for each audience, and to the license', async () => {
    const targets = links(await readDocument('README.md')).map(({ target }) => target);
    expect(targets).to.include.members([
      'docs/guides/calling-the-api.md',
      'docs/guides/receiving-webhooks.md',
      'docs/guides/build-an-app.md',
      'docs/operations/running-separately.md',
      'docs/operations/configuration.md',
      'docs/architecture.md',
      'CONTRIBUTING.md',
      'SECURITY.md',
      'LICENSE',
    ]);
  });
});
