// Group commit (platform/group-commit.ts) without a database: how requests are gathered into
// batches, what a failed batch does, and the bounded queue.
import { expect } from 'chai';
import { createGroupCommit, type BatchAnswer } from '../../platform/group-commit.ts';

const doubled = (batches: number[][], failWhen?: (batch: readonly number[]) => boolean) =>
  createGroupCommit<number, number>({
    windowMs: 20,
    maxSize: 3,
    maxInFlight: 1,
    busy: () => new Error('busy'),
    async write(batch) {
      batches.push([...batch]);
      if (failWhen?.(batch)) throw new Error(`write of ${batch.join(',')} failed`);
      return batch.map((value): BatchAnswer<number> => (value < 0 ? { ok: false, error: new Error(`refused ${value}`) } : { ok: true, result: value * 2 }));
    },
  });

describe('group commit (platform/group-commit.ts)', () => {
  it('writes concurrent requests together, at most maxSize at a time, and answers each its own result', async () => {
    const batches: number[][] = [];
    const commit = doubled(batches);
    const results = await Promise.all([1, 2, 3, 4, 5].map((value) => commit.submit(value)));
    expect(results).to.deep.equal([2, 4, 6, 8, 10]);
    expect(batches).to.deep.equal([
      [1, 2, 3],
      [4, 5],
    ]);
  });

  it('rejects only the request its batch refused', async () => {
    const commit = doubled([]);
    const settled = await Promise.allSettled([1, -2, 3].map((value) => commit.submit(value)));
    expect(settled.map((outcome) => outcome.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled']);
    expect((settled[1] as PromiseRejectedResult).reason.message).to.equal('refused -2');
  });

  it('writes a failed batch again one request at a time, so only the request at fault fails', async () => {
    const batches: number[][] = [];
    const commit = doubled(batches, (batch) => batch.includes(7));
    const settled = await Promise.allSettled([6, 7, 8].map((value) => commit.submit(value)));
    expect(settled.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : outcome.reason.message))).to.deep.equal([12, 'write of 7 failed', 16]);
    expect(batches).to.deep.equal([[6, 7, 8], [6], [7], [8]]);
  });

  it('refuses at once with the busy error past maxQueued waiting requests, and stop() writes what it accepted', async () => {
    const batches: number[][] = [];
    const commit = createGroupCommit<number, number>({
      windowMs: 60_000,
      maxSize: 100,
      maxQueued: 2,
      busy: () => new Error('busy'),
      write: async (batch) => (batches.push([...batch]), batch.map((value) => ({ ok: true as const, result: value }))),
    });
    const accepted = [commit.submit(1), commit.submit(2)];
    const refused = await commit.submit(3).catch((error: Error) => error.message);
    expect(refused).to.equal('busy');
    await commit.stop();
    expect(await Promise.all(accepted)).to.deep.equal([1, 2]);
    expect(batches).to.deep.equal([[1, 2]]);
  });
});
