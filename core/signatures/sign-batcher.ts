// Group commit for signatures: concurrent sign requests of one API process are gathered and written
// together by signBatch (core/signatures/sign.ts), one statement for up to `maxSize` of them.
//
// - The first request of a batch waits at most `windowMs` for company; a full batch goes at once.
// - At most `maxInFlight` batches are being written at a time; whatever arrives meanwhile waits and
//   goes in the next batch, so batches grow with the load instead of the number of statements.
// - Nothing is answered before its batch committed: the timer only decides when a batch closes, never
//   whether a signature is durable.
// - The queue is bounded: past `maxQueued` waiting requests, a request is refused at once with 503
//   and Retry-After instead of joining a backlog the database cannot catch up with.
// - A batch whose write fails (a constraint no check foresaw, a deadlock, a lost connection) is
//   written again one request at a time, so only the request at fault fails, with its own error.
import type { DatabasePool } from 'slonik';
import { Unavailable } from '../errors/domain-error.ts';
import { silentLogger, type Logger } from '../../platform/logger.ts';
import { signBatch, type SignAnswer, type SignRequest, type SignResult } from './sign.ts';

export type SignBatcherOptions = { windowMs: number; maxSize: number; maxInFlight?: number; maxQueued?: number; log?: Logger };

export type SignBatcher = {
  /** Signs as part of the next batch; resolves once that batch committed, or rejects with this request's own error. */
  sign(request: SignRequest): Promise<SignResult>;
  /** Writes what is waiting, then resolves when every batch has finished. */
  stop(): Promise<void>;
};

type Waiting = { request: SignRequest; settle(answer: SignAnswer): void; fail(error: unknown): void };

// Enough batches in flight to keep a few pool connections busy, few enough to leave the pool to reads.
const DEFAULT_IN_FLIGHT = 4;
// About a second of signing at full speed; beyond that a client is better off retrying than waiting.
const MAX_QUEUED = 5_000;

export function createSignBatcher(db: DatabasePool, options: SignBatcherOptions): SignBatcher {
  const maxInFlight = options.maxInFlight ?? DEFAULT_IN_FLIGHT;
  const maxQueued = options.maxQueued ?? MAX_QUEUED;
  const queue: Waiting[] = [];
  const writing = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let stopping = false;

  async function write(batch: Waiting[]): Promise<void> {
    try {
      const answers = await signBatch(
        db,
        batch.map((waiting) => waiting.request),
        options.log ?? silentLogger,
      );
      batch.forEach((waiting, index) => waiting.settle(answers[index]!));
    } catch (error) {
      if (batch.length === 1) return batch[0]!.fail(error);
      await Promise.all(batch.map((waiting) => write([waiting])));
    }
  }

  function flush(): void {
    clearTimeout(timer);
    timer = undefined;
    while (writing.size < maxInFlight && queue.length > 0) {
      const running: Promise<void> = write(queue.splice(0, options.maxSize)).finally(() => {
        writing.delete(running);
        // Requests that queued while every slot was busy have waited long enough already.
        if (queue.length > 0 && timer === undefined) flush();
      });
      writing.add(running);
    }
  }

  function enqueue(waiting: Waiting): void {
    queue.push(waiting);
    if (queue.length >= options.maxSize || stopping) flush();
    else timer ??= setTimeout(flush, options.windowMs);
  }

  return {
    sign(request) {
      return new Promise<SignResult>((resolve, reject) => {
        if (queue.length >= maxQueued) {
          reject(new Unavailable('Signing is very busy right now; try again in a moment.', { code: 'signing_busy', retryAfterSeconds: 1 }));
          return;
        }
        enqueue({ request, settle: (answer) => (answer.ok ? resolve(answer.result) : reject(answer.error)), fail: reject });
      });
    },
    async stop() {
      stopping = true;
      while (queue.length > 0 || writing.size > 0) {
        flush();
        await Promise.all(writing);
      }
    },
  };
}
