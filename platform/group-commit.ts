// Group commit: concurrent requests of one process are gathered and written together, one transaction (and one commit) for up to `maxSize` of them. Signatures
// (sign-batcher.ts) and guest signing forms (submit-batcher.ts) go through it: on a hot petition, a transaction per request queues every request on that
// petition's row locks and pays a commit each, where a batch takes the locks and the commit once.

/** A request's own answer from its batch: its result, or the error it alone is refused with. */
export type BatchAnswer<Result, Refusal = unknown> = { ok: true; result: Result } | { ok: false; error: Refusal };

export type GroupCommitOptions<Request, Result> = {
  /** Writes a batch atomically and answers each request, in order; throws only when the write itself failed. */
  write(batch: readonly Request[]): Promise<BatchAnswer<Result>[]>;
  /** The error a request gets when the queue is full. */
  busy(): Error;
  windowMs: number;
  maxSize: number;
  maxInFlight?: number;
  maxQueued?: number;
};

export type GroupCommit<Request, Result> = {
  /** Joins the next batch; resolves once that batch committed, or rejects with this request's own error. */
  submit(request: Request): Promise<Result>;
  /** Writes what is waiting, then resolves when every batch has finished. */
  stop(): Promise<void>;
};

type Waiting<Request, Result> = { request: Request; settle(answer: BatchAnswer<Result>): void; fail(error: unknown): void };

// Enough batches in flight to keep a few pool connections busy, few enough to leave the pool to reads.
const DEFAULT_IN_FLIGHT = 4;
// About a second of writing at full speed; beyond that a client is better off retrying than waiting.
const DEFAULT_MAX_QUEUED = 5_000;

// The first request of a batch waits at most `windowMs` for company; a full batch goes at once. At most
// `maxInFlight` batches are being written at a time; whatever arrives meanwhile waits and goes in the next
// batch, so batches grow with the load instead of the number of transactions. Nothing is answered before its
// batch committed: the timer only decides when a batch closes, never whether a request is durable. The queue is
// bounded: past `maxQueued` waiting requests, a request is refused at once with the caller's `busy()` error
// instead of joining a backlog the database cannot catch up with. A batch whose write fails (a constraint no
// check foresaw, a deadlock, a lost connection) is written again one request at a time, so only the request at
// fault fails, with its own error.
export function createGroupCommit<Request, Result>(options: GroupCommitOptions<Request, Result>): GroupCommit<Request, Result> {
  const maxInFlight = options.maxInFlight ?? DEFAULT_IN_FLIGHT;
  const maxQueued = options.maxQueued ?? DEFAULT_MAX_QUEUED;
  const queue: Waiting<Request, Result>[] = [];
  const writing = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let stopping = false;

  async function write(batch: Waiting<Request, Result>[]): Promise<void> {
    try {
      const answers = await options.write(batch.map((waiting) => waiting.request));
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

  function enqueue(waiting: Waiting<Request, Result>): void {
    queue.push(waiting);
    if (queue.length >= options.maxSize || stopping) flush();
    else timer ??= setTimeout(flush, options.windowMs);
  }

  return {
    submit(request) {
      return new Promise<Result>((resolve, reject) => {
        if (queue.length >= maxQueued) return reject(options.busy());
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
