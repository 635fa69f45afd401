// Requests from a chosen loopback address, as many clients send them: the client socket is bound to
// that address (the Agent's `localAddress`; undici 7 ignores `connect.localAddress`), so Rally sees it
// as the peer without any proxy header. Linux answers on all of 127.0.0.0/8; IPv6 has ::1 alone.
import { Agent, request } from 'undici';

export type BoundAnswer = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

/** Header of one value (the first, when repeated). */
export const headerOf = (answer: BoundAnswer, name: string): string | undefined => {
  const value = answer.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
};

/** The i-th of up to 16 million distinct loopback addresses: 127.a.b.c, never .0 or .255 in the last place. */
export function loopbackAddress(index: number, first = 1): string {
  const host = (index % 254) + 1;
  const rest = Math.floor(index / 254);
  return `127.${first + Math.floor(rest / 256)}.${rest % 256}.${host}`;
}

export async function requestFrom(
  localAddress: string,
  url: string,
  options: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string } = {},
): Promise<BoundAnswer> {
  const dispatcher = new Agent({ localAddress });
  try {
    const answer = await request(url, { method: options.method ?? 'GET', headers: options.headers, body: options.body, dispatcher });
    return { status: answer.statusCode, headers: answer.headers, body: await answer.body.text() };
  } finally {
    await dispatcher.close();
  }
}
