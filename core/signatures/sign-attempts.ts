// The count of sign attempts that reached a signing handler, the API's and the browser's one-click
// form alike (rally_signatures_total): accepted, or refused with the domain error's code.
import { metrics } from '../../platform/metrics.ts';

/** Counts a sign attempt that reached the handler: accepted, or refused with the problem's code. */
export async function countedSignature<T>(sign: () => Promise<T>): Promise<T> {
  try {
    const result = await sign();
    metrics.signatures.inc({ outcome: 'accepted', reason: '' });
    return result;
  } catch (error) {
    metrics.signatures.inc({ outcome: 'refused', reason: (error as { code?: unknown }).code ? String((error as { code: unknown }).code) : 'error' });
    throw error;
  }
}
