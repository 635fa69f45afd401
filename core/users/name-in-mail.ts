// A person's display name in an email Rally sends to someone else (a guest's confirmation, which may reach a stranger; a replier's; a departing member's).
// Anyone types a name, so "Claim your prize at evil.example" must not arrive in Rally's voice as a link: every word a mail client would make clickable (a URL,
// a host name, an address) is left out, and the name is cut short.
export const NAME_IN_MAIL_MAX = 40;

// Invisible or direction-changing characters, which could hide a link's dot or dress it up as
// something else, go; control characters separate words.
const INVISIBLE = /[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
const DOT = '[.\u3002\uff0e\uff61]';
const LINK_WORDS = [
  /:\/\//, // any scheme's URL
  new RegExp(`^(?:www\\d*${DOT}|(?:mailto|tel|sms|data|javascript):)`, 'i'),
  /@/, // an email address (and its mailto)
  new RegExp(`[\\p{L}\\p{N}-]${DOT}\\p{L}[\\p{L}\\p{N}-]`, 'u'), // a host name: evil.example, evil.example/x
  new RegExp(`\\d${DOT}\\d+${DOT}\\d+${DOT}\\d`), // an IPv4 address
];

const isLinkLike = (word: string) => LINK_WORDS.some((pattern) => pattern.test(word));

/** `name` as plain words of at most NAME_IN_MAIL_MAX characters, or `fallback` when nothing is left. */
export function nameInMail(name: string, fallback: string): string {
  const words = name
    .replace(INVISIBLE, '')
    .replace(CONTROL, ' ')
    .split(/\s+/)
    .filter((word) => word && !isLinkLike(word));
  const plain = [...words.join(' ')];
  if (plain.length === 0) return fallback;
  return plain.length <= NAME_IN_MAIL_MAX
    ? plain.join('')
    : `${plain
        .slice(0, NAME_IN_MAIL_MAX - 1)
        .join('')
        .trimEnd()}…`;
}
