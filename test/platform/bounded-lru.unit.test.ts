import { expect } from 'chai';
import { createBoundedLru } from '../../platform/bounded-lru.ts';

describe('createBoundedLru (platform/bounded-lru.ts)', () => {
  it('holds at most its bound, dropping the least recently used entry first, as lru-cache with max does', () => {
    const disposed: string[] = [];
    const cache = createBoundedLru<string, number>(3, { dispose: (_value, key) => disposed.push(key) });
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    cache.get('a');
    cache.set('d', 4);
    expect([...cache.keys()].sort()).to.deep.equal(['a', 'c', 'd']);
    expect(disposed).to.deep.equal(['b']);
    for (let index = 0; index < 100; index++) cache.set(`k${index}`, index);
    expect(cache.size).to.equal(3);
  });

  it('passes the other options on (ttl)', async () => {
    const cache = createBoundedLru<string, number>(10, { ttl: 5 });
    cache.set('a', 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(cache.get('a')).to.equal(undefined);
  });

  it('with purgeStaleEveryMs, drops expired entries that are never read again, and keeps fresh ones', async () => {
    const disposed: string[] = [];
    const cache = createBoundedLru<string, number>(10, { purgeStaleEveryMs: 5, dispose: (_value, key) => disposed.push(key) });
    cache.set('signer', 1, { ttl: 10 });
    cache.set('regular', 2, { ttl: 60_000 });
    const deadline = Date.now() + 5_000;
    while (!disposed.includes('signer') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(disposed).to.deep.equal(['signer']);
    expect([...cache.keys()]).to.deep.equal(['regular']);
  });
});
