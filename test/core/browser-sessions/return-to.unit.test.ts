// Where a browser goes after logging in or out (issues 26 and 42): a path on Rally's own origin only;
// every way of naming another site, before or after dot segments and percent-encoding are resolved,
// falls back to the default, so /login is no open redirect.
import { expect } from 'chai';
import { safeReturnPath } from '../../../core/browser-sessions/return-to.ts';

describe('return_to validation', () => {
  it('keeps a same-origin path with its query', () => {
    expect(safeReturnPath('/p/save-the-park')).to.equal('/p/save-the-park');
    expect(safeReturnPath('/p/save-the-park/sign-popup?x=1')).to.equal('/p/save-the-park/sign-popup?x=1');
  });

  it('drops the fragment and normalises dot segments', () => {
    expect(safeReturnPath('/p/a#sign')).to.equal('/p/a');
    expect(safeReturnPath('/p/../account')).to.equal('/account');
  });

  const hostile = [
    'https://evil.example/',
    '//evil.example/path',
    '/\\evil.example',
    '\\\\evil.example',
    '/\t/evil.example',
    '/\n/evil.example',
    'javascript:alert(1)',
    'data:text/html,hi',
    'p/relative',
    '',
    `/${'a'.repeat(1001)}`,
    // Dot segments that resolve to "//host" (issue 42): the input passes a check of the raw string.
    '/.//evil.example',
    '/a/..//evil.example',
    '/%2e//evil.example',
    '/%2E%2E//evil.example',
    '/a/%2e%2e//evil.example/path?x=1',
    '/./\\evil.example',
    // Encoded forms: a slash, a backslash or a tab that a proxy or a second decoding would restore.
    '/%2f/evil.example',
    '/%2F%2Fevil.example',
    '/%5cevil.example',
    '/%5C%5Cevil.example',
    '/%09/evil.example',
    '/%0a/evil.example',
    '/%252f/evil.example',
    '/%25252f%25252fevil.example',
    '/p/%5c',
    '/p/%zz',
  ];
  for (const value of hostile) {
    it(`refuses ${JSON.stringify(value.slice(0, 30))}`, () => {
      expect(safeReturnPath(value)).to.equal('/account');
    });
  }

  it('keeps an OAuth authorization request whose query holds encoded slashes', () => {
    const request = '/oauth/authorize?client_id=app&redirect_uri=https%3A%2F%2Fapp.example%2Fcb&state=a%2F%2Fb';
    expect(safeReturnPath(request)).to.equal(request);
  });

  it('refuses what is not a string, with the fallback given', () => {
    expect(safeReturnPath(['/p/a'], '/p/b')).to.equal('/p/b');
    expect(safeReturnPath(undefined)).to.equal('/account');
  });
});
