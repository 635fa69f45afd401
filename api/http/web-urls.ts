// Addresses clients give for images other people's browsers load (a petition's imageUrl, a user's
// avatar_url). The schemas let only http(s) through; in production plain http is refused too, so a
// page served over https never pulls an image over an interceptable connection.
import { fieldError } from './problem.ts';

/** `httpsOnly` is Config.nodeEnv === 'production'. Throws the 422 for an http: URL there. */
export function assertWebUrl(httpsOnly: boolean, field: string, value: string | null | undefined): void {
  if (!httpsOnly || value === undefined || value === null) return;
  if (!/^https:\/\//i.test(value)) throw fieldError(field, 'invalid_format', 'must be an https URL');
}
