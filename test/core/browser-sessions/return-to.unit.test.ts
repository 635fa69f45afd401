// Where a browser goes after logging in or out (issue 26): a path on Rally's own origin only; every
// way of naming another site falls back to the default, so /login is no open redirect.
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
  ];
  for (const value of hostile) {
    it(`refuses ${JSON.stringify(value.slice(0, 30))}`, () => {
      expect(safeReturnPath(value)).to.equal('/account');
    });
  }

  it('refuses what is not a string, with the fallback given', () => {
    expect(safeReturnPath(['/p/a'], '/p/b')).to.equal('/p/b');
    expect(safeReturnPath(undefined)).to.equal('/account');
  });
});
