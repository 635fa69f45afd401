// A steady stream of signatures on one petition, from many distinct users, through whichever API process is up at the moment: for tests that kill processes
// while people sign. It keeps what was acknowledged (201) apart from what got no answer (connection refused or reset), which is exactly what a client cannot
// know about and must retry, and apart from a 503 (a dependency restarting), which tells the client to retry.
import { setTimeout as pause } from 'node:timers/promises';
import { createTokenUsers } from './identity.ts';

export type Acknowledged = { userId: string; signatureId: string; milestoneReached: boolean };

export type SigningLoad = {
  acknowledged: Acknowledged[];
  /** Users whose request got no answer or a 503, to be retried; removed from here once retried. */
  unanswered: { userId: string; token: string }[];
  /** Answers other than 201 and no answer, by status (`no answer` for connection failures). */
  others: Map<string, number>;
  /** Users not used yet. */
  remaining(): number;
  /** Stops the stream; resolves when the requests in flight have ended. */
  stop(): Promise<void>;
  /** Signs again for every user who got no answer or a 503; 201 or 409 (already signed) are both fine. */
  retryUnanswered(): Promise<{ status: number; userId: string }[]>;
};

export async function startSigningLoad(options: {
  baseUrl: () => string;
  petitionId: string;
  users: number;
  parallel: number;
  pauseMs: number;
}): Promise<SigningLoad> {
  const pool = (await createTokenUsers(options.users)).map((user) => ({ userId: user.id, token: user.access_token }));
  const load: Omit<SigningLoad, 'stop' | 'remaining' | 'retryUnanswered'> = { acknowledged: [], unanswered: [], others: new Map() };
  const count = (key: string) => load.others.set(key, (load.others.get(key) ?? 0) + 1);
  let stopped = false;

  async function sign(user: { userId: string; token: string }): Promise<number | undefined> {
    const response = await fetch(`${options.baseUrl()}/v1/petitions/${options.petitionId}/signatures`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${user.token}` },
      body: '{}',
      signal: AbortSignal.timeout(15_000),
    }).catch(() => undefined);
    if (!response) return undefined;
    const body = (await response.json().catch(() => undefined)) as { data?: { id: string; milestone_reached: boolean } } | undefined;
    if (response.status === 201 && body?.data)
      load.acknowledged.push({ userId: user.userId, signatureId: body.data.id, milestoneReached: body.data.milestone_reached });
    return response.status;
  }

  const loops = Array.from({ length: options.parallel }, async () => {
    while (!stopped && pool.length > 0) {
      const user = pool.pop()!;
      const status = await sign(user);
      if (status === undefined || status === 503) {
        load.unanswered.push(user);
        count(status === undefined ? 'no answer' : '503');
      } else if (status !== 201) {
        count(String(status));
      }
      await pause(options.pauseMs);
    }
  });

  return {
    ...load,
    remaining: () => pool.length,
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
    async retryUnanswered() {
      const results: { status: number; userId: string }[] = [];
      for (const user of load.unanswered.splice(0)) {
        const status = await sign(user);
        if (status === undefined || status === 503) load.unanswered.push(user);
        else results.push({ status, userId: user.userId });
      }
      return results;
    },
  };
}
