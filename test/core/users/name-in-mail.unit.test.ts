// A display name in an email to someone else (core/users/name-in-mail.ts, issue 42 finding 10f): the
// person who typed it may not be the recipient, so no word a mail client would make a link, and short.
import { expect } from 'chai';
import { NAME_IN_MAIL_MAX, nameInMail } from '../../../core/users/name-in-mail.ts';

describe('display names in mail to others (core/users/name-in-mail.ts)', () => {
  it('leaves out every link a mail client would make clickable', () => {
    const cases: [string, string][] = [
      ['Claim your prize at https://evil.example/win', 'Claim your prize at'],
      ['Visit www.evil.example now', 'Visit now'],
      ['Go to evil.example/login', 'Go to'],
      ['EVIL。EXAMPLE support', 'support'], // an ideographic full stop links too
      ['evil\u200b.example team', 'team'], // a zero-width space does not hide the dot
      ['write to help@evil.example', 'write to'],
      ['mailto:help tel:+15550100 ok', 'ok'],
      ['10.0.0.1 router', 'router'],
      ['https://evil.example', 'there'],
    ];
    for (const [name, plain] of cases) expect(nameInMail(name, 'there'), name).to.equal(plain);
  });

  it('keeps ordinary names whole, initials and punctuation included', () => {
    for (const name of ['Gina Guest', 'J. R. R. Tolkien', "Anne-Marie O'Neil", 'Ünal Çelik', 'Telma Data', '李小龙']) {
      expect(nameInMail(name, 'there')).to.equal(name);
    }
  });

  it(`cuts a long name to ${NAME_IN_MAIL_MAX} characters and turns control characters into spaces`, () => {
    const long = nameInMail('Bartholomew '.repeat(10), 'there');
    expect([...long]).to.have.length.at.most(NAME_IN_MAIL_MAX);
    expect(long.endsWith('…')).to.equal(true);
    expect(nameInMail('Ada\r\nBcc: all@evil\tLovelace', 'there')).to.equal('Ada Bcc: Lovelace');
  });
});
