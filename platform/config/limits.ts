// Limits on what one caller may do: the request rate, signing, logins, and reCAPTCHA on signatures.

import { Type, type StaticDecode } from '@sinclair/typebox';
import type { Config } from './types.ts';
import { countPerWindow, domainList, duration, flag, integer, text, url } from './variables.ts';

// Mail providers anyone can get an address at: a domain limit on them would throttle the public.
const OPEN_MAIL_DOMAINS =
  'gmail.com,googlemail.com,outlook.com,hotmail.com,live.com,msn.com,yahoo.com,icloud.com,me.com,aol.com,' +
  'proton.me,protonmail.com,gmx.de,gmx.net,web.de,mail.ru,yandex.ru,qq.com,163.com';
const MANY = 1_000_000_000;
/** The default hard ceiling is this many times its threshold (issue 44). */
const CEILING_MULTIPLE = 20;

/** A hard ceiling per hour: `0` turns it off. */
const ceiling = (docs: { defaultText: string; description: string }) => Type.Integer({ minimum: 0, maximum: MANY, ...docs });

export const limitVariables = {
  RALLY_RATE_LIMIT_ENABLED: flag({ default: true, description: "`false` turns the API rate limiter off. Meant only for measuring the limiter's own cost." }),
  RALLY_RATE_LIMIT_RPS: integer(MANY, {
    default: 100,
    description: 'sustained requests per second per API key or access token; unauthenticated callers per client IP',
  }),
  RALLY_RATE_LIMIT_BURST: integer(MANY, { default: 200, description: 'bucket size for the above' }),
  RALLY_SIGN_LIMIT_PER_HOUR: integer(MANY, { default: 10, description: 'signatures per client IP per hour (IPv6: per /64)' }),
  RALLY_SIGN_BATCH_WINDOW: duration('RALLY_SIGN_BATCH_WINDOW', {
    default: '2ms',
    description: 'group commit: how long the first sign request of a batch waits for others before the batch is written',
  }),
  RALLY_SIGN_BATCH_MAX: integer(1_000, {
    default: 100,
    description: 'group commit: the most sign requests written by one statement (1 to 1000; `1` writes each request alone)',
  }),
  RALLY_SIGN_LIMIT_PER_BLOCK_PER_HOUR: integer(MANY, {
    default: 200,
    description:
      'threshold that flags: signatures per hour from one network block (the /24 of an IPv4 address, the /64 of an IPv6 one) ' +
      'past which signatures are still accepted and counted, but flagged for review',
  }),
  RALLY_SIGN_LIMIT_PER_DOMAIN_PER_HOUR: integer(MANY, {
    default: 300,
    description:
      'threshold that flags: signatures per hour by accounts of one email domain (as normalised for signatures), except the ' +
      'open mail providers below, past which signatures are accepted, counted and flagged for review',
  }),
  RALLY_SIGN_CEILING_PER_BLOCK_PER_HOUR: Type.Optional(
    ceiling({
      defaultText: '20 × RALLY_SIGN_LIMIT_PER_BLOCK_PER_HOUR',
      description: 'hard ceiling: signatures per hour from one network block past which signing answers 429 `signing_limit`; `0` turns it off',
    }),
  ),
  RALLY_SIGN_CEILING_PER_DOMAIN_PER_HOUR: Type.Optional(
    ceiling({
      defaultText: '20 × RALLY_SIGN_LIMIT_PER_DOMAIN_PER_HOUR',
      description: 'hard ceiling: signatures per hour by accounts of one email domain past which signing answers 429 `signing_limit`; `0` turns it off',
    }),
  ),
  RALLY_SIGN_LIMIT_OPEN_DOMAINS: domainList({
    default: OPEN_MAIL_DOMAINS,
    description: 'comma-separated domains anyone can get an address at, which the per-domain limit leaves alone',
  }),
  RALLY_LOGIN_FAILURE_LIMIT: countPerWindow('RALLY_LOGIN_FAILURE_LIMIT', {
    default: '10/15m',
    description:
      'failed logins for one email, from any address, after which every attempt for it answers 429 until the window ' +
      '(opened by the first attempt) passes, except from a browser holding a device cookie of an earlier login to that ' +
      'account; one client address (IPv6: its /64) gets five times as many across emails',
  }),
  RECAPTCHA_SECRET: Type.Optional(
    text({
      defaultText: 'unset (no check)',
      description: 'when set, signing requires a `recaptchaToken`, which is checked with the verifier',
    }),
  ),
  RECAPTCHA_VERIFY_URL: url('http-url', { default: 'https://www.google.com/recaptcha/api/siteverify', description: 'the reCAPTCHA verifier' }),
};

type Values = StaticDecode<ReturnType<typeof Type.Object<typeof limitVariables>>>;

export function limitSettings(values: Values) {
  return {
    rateLimit: Object.freeze({
      enabled: values.RALLY_RATE_LIMIT_ENABLED,
      rps: values.RALLY_RATE_LIMIT_RPS,
      burst: values.RALLY_RATE_LIMIT_BURST,
      signPerHour: values.RALLY_SIGN_LIMIT_PER_HOUR,
    }),
    signBatch: Object.freeze({ windowMs: values.RALLY_SIGN_BATCH_WINDOW, maxSize: values.RALLY_SIGN_BATCH_MAX }),
    signingThrottle: Object.freeze({
      perBlockPerHour: values.RALLY_SIGN_LIMIT_PER_BLOCK_PER_HOUR,
      perDomainPerHour: values.RALLY_SIGN_LIMIT_PER_DOMAIN_PER_HOUR,
      openDomains: Object.freeze(values.RALLY_SIGN_LIMIT_OPEN_DOMAINS),
      blockCeilingPerHour: values.RALLY_SIGN_CEILING_PER_BLOCK_PER_HOUR ?? CEILING_MULTIPLE * values.RALLY_SIGN_LIMIT_PER_BLOCK_PER_HOUR,
      domainCeilingPerHour: values.RALLY_SIGN_CEILING_PER_DOMAIN_PER_HOUR ?? CEILING_MULTIPLE * values.RALLY_SIGN_LIMIT_PER_DOMAIN_PER_HOUR,
    }),
    loginFailureLimit: Object.freeze(values.RALLY_LOGIN_FAILURE_LIMIT),
    recaptcha: Object.freeze({ secret: values.RECAPTCHA_SECRET, verifyUrl: values.RECAPTCHA_VERIFY_URL }),
  } satisfies Partial<Config>;
}
