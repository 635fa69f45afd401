// A local SMTP server that catches every message the service sends, for tests that read emails the
// way a recipient would. Point the service's SMTP_URL at `url`.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { eventually } from './events.ts';

export type CaughtMail = { to: string[]; raw: string; subject: string; text: string };

/** Undoes quoted-printable soft line breaks and escapes, enough to read links and plain text. */
function decodeQuotedPrintable(body: string): string {
  return body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** Decodes RFC 2047 encoded words (=?UTF-8?Q?…?= and =?UTF-8?B?…?=) in a header value. */
function decodeHeader(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?UTF-8\?([QB])\?([^?]*)\?=/gi, (_, encoding: string, text: string) =>
      encoding.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : Buffer.from(decodeQuotedPrintable(text.replaceAll('_', ' ')), 'latin1').toString('utf8'),
    );
}

function parse(raw: string, to: string[]): CaughtMail {
  const [head = '', ...rest] = raw.split(/\r?\n\r?\n/);
  const subject = decodeHeader(/^Subject: (.*(?:\r?\n[ \t].*)*)/m.exec(head)?.[1]?.replace(/\r?\n([ \t])/g, '$1') ?? '');
  const body = rest.join('\n\n');
  return { to, raw, subject, text: /quoted-printable/i.test(head) ? decodeQuotedPrintable(body) : body };
}

/** `refuse` names recipients the server answers 550, as a real one does for an unknown mailbox. */
export async function startMailCatcher(options: { refuse?: (address: string) => boolean } = {}) {
  const messages: CaughtMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      callback(options.refuse?.(address.address) ? Object.assign(new Error('mailbox unavailable'), { responseCode: 550 }) : undefined);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        messages.push(
          parse(
            Buffer.concat(chunks).toString('utf8'),
            session.envelope.rcptTo.map((rcpt) => rcpt.address),
          ),
        );
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    /** The first message to `address` whose subject matches, waiting for it to arrive. */
    waitFor(address: string, subject: RegExp, timeoutMs = 30_000): Promise<CaughtMail> {
      return eventually(
        async () => messages.find((message) => message.to.includes(address) && subject.test(message.subject)),
        timeoutMs,
        `an email to ${address} matching ${subject}`,
      );
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type MailCatcher = Awaited<ReturnType<typeof startMailCatcher>>;

/** The portal link in an invitation. */
export function portalLink(mail: CaughtMail): string {
  const link = /https?:\/\/\S+\/respond\/[A-Za-z0-9_-]{43}/.exec(mail.text)?.[0];
  if (!link) throw new Error(`no portal link in:\n${mail.raw}`);
  return link;
}
