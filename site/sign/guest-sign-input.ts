// The guest form's fields as the signer sent them (strings of a url-encoded body), checked: what to
// show again in the form, an error per field in words a person can act on, and, when all is well,
// the signature's input. The limits are the database's (users and guest_signatures constraints).
import type { GuestSignatureForm } from '../../core/guest-signatures/submit.ts';
import { GUEST_FORM_FIELDS, type GuestFormErrors, type GuestFormValues } from './guest-sign-form.ts';

const MAX_NAME = 100;
const MAX_EMAIL = 254;
const MAX_COMMENT = 500;
// A pragmatic address check (the link in the email is the real one): one @, no spaces or brackets,
// a dotted domain of letters, digits and hyphens.
const EMAIL = /^[^\s@<>()[\]\\,;:"]{1,64}@(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

export type GuestFormInput = Pick<GuestSignatureForm, 'email' | 'displayName' | 'comment' | 'isAnonymous' | 'contactConsent'>;

export function readGuestForm(fields: Record<string, string>): { values: GuestFormValues; errors: GuestFormErrors; input: GuestFormInput | null } {
  const text = (name: string) => (fields[name] ?? '').normalize('NFC');
  const values: GuestFormValues = {
    name: text(GUEST_FORM_FIELDS.name).trim(),
    email: text(GUEST_FORM_FIELDS.email).trim(),
    comment: text(GUEST_FORM_FIELDS.comment).trim(),
    anonymous: fields[GUEST_FORM_FIELDS.anonymous] !== undefined,
    consent: fields[GUEST_FORM_FIELDS.consent] !== undefined,
  };
  const errors: GuestFormErrors = {};
  if (!values.name) errors.name = 'Enter your name.';
  else if ([...values.name].length > MAX_NAME) errors.name = `Your name can be at most ${MAX_NAME} characters long.`;
  else if (CONTROL.test(values.name) || /[\r\n]/.test(values.name)) errors.name = 'Your name contains characters that cannot be used.';
  if (!values.email) errors.email = 'Enter your email address.';
  else if (values.email.length > MAX_EMAIL || !EMAIL.test(values.email)) errors.email = 'Enter an email address like name@example.org.';
  if ([...values.comment].length > MAX_COMMENT) errors.comment = `Your comment can be at most ${MAX_COMMENT} characters long.`;
  else if (CONTROL.test(values.comment)) errors.comment = 'Your comment contains characters that cannot be used.';
  // Never show back more than the form could hold: a huge field is not echoed into the page.
  const shown = { ...values, name: values.name.slice(0, MAX_NAME), email: values.email.slice(0, MAX_EMAIL), comment: values.comment.slice(0, MAX_COMMENT) };
  if (Object.keys(errors).length > 0) return { values: shown, errors, input: null };
  return {
    values: shown,
    errors,
    input: {
      email: values.email,
      displayName: values.name,
      comment: values.comment || null,
      isAnonymous: values.anonymous,
      contactConsent: values.consent,
    },
  };
}
