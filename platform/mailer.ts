// Outgoing email for the whole service. With SMTP_URL set, messages go through that server; without
// it, each message is written as an .eml file under RALLY_MAIL_DIR (default .data/mail), so a
// development or test setup never mails anyone by accident and every message can be opened.
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { SendMailOptions, SentMessageInfo, Transporter } from 'nodemailer';
import type { Config } from './config.ts';

export type MailMessage = { to: string; subject: string; text: string; html?: string; headers?: Record<string, string> };
export type SentMail = { messageId: string };
export type Mailer = { send(message: MailMessage): Promise<SentMail>; close(): void };

// Fail an attempt quickly; the caller (a workflow activity) retries with backoff.
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 };

/**
 * nodemailer (~5 MB of heap once loaded) is loaded and its transport made at the first message, not
 * when the worker composes its activities: most workers run for long stretches without mailing.
 */
function lazyTransport(options: Record<string, unknown>): { sendMail(message: SendMailOptions): Promise<SentMessageInfo>; close(): void } {
  let transport: Promise<Transporter> | undefined;
  const open = () => (transport ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport(options)));
  return {
    async sendMail(message) {
      return (await open()).sendMail(message);
    },
    close() {
      void transport?.then(
        (opened) => opened.close(),
        () => {},
      );
    },
  };
}

/**
 * Whether the mail server refused the recipient (its answer to RCPT TO, which nodemailer reports as
 * EENVELOPE): a failure of that one address, not of the server, so the others' mail need not wait.
 */
export function isRecipientRefused(error: unknown): boolean {
  const { code, command } = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown; command?: unknown };
  return code === 'EENVELOPE' && command === 'RCPT TO';
}

export function createMailer(settings: Config['mail']): Mailer {
  return settings.smtpUrl ? createSmtpMailer(settings.smtpUrl, settings.from) : createFolderMailer(settings.dir, settings.from);
}

function createSmtpMailer(smtpUrl: string, from: string): Mailer {
  const transport = lazyTransport({ url: smtpUrl, ...SMTP_TIMEOUTS });
  return {
    async send(message) {
      const info = await transport.sendMail({ from, ...message });
      return { messageId: info.messageId };
    },
    close: () => transport.close(),
  };
}

function createFolderMailer(dir: string, from: string): Mailer {
  const transport = lazyTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  // The folder is made at the first message, and again only if it has gone since.
  let folder: Promise<unknown> | undefined;
  const ensureFolder = () => (folder ??= mkdir(dir, { recursive: true }));
  return {
    async send(message) {
      const info = await transport.sendMail({ from, ...message });
      // Sortable by time, unique without coordination.
      const file = path.join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}.eml`);
      await ensureFolder();
      await writeFile(file, info.message as Buffer).catch(async (error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
        folder = undefined;
        await ensureFolder();
        await writeFile(file, info.message as Buffer);
      });
      return { messageId: info.messageId };
    },
    close: () => transport.close(),
  };
}
