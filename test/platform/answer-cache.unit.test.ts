import { expect } from 'chai';
import { createAnswerCache } from '../../platform/answer-cache.ts';

type Answer = { version: number };

/** A cache on a hand-turned clock, and a load that counts its calls and can be held open. */
function setUp(options: { freshMs?: number; maxAgeMs?: number; max?: number } = {}) {
  // Not 0: lru-cache, which keeps the answers, reads a start time of 0 as "no time to live".
  let clock = 1_000_000;
  const warnings: string[] = [];
  const cache = createAnswerCache<Answer>({
    max: options.max ?? 10,
    freshMs: options.freshMs ?? 1_000,
    maxAgeMs: options.maxAgeMs ?? 10_000,
    name: 'test answer',
    log: { warn: (message) => void warnings.push(message) },
    now: () => clock,
  });
  let loads = 0;
  let gate: Promise<void> = Promise.resolve();
  const load = async (): Promise<Answer> => {
    loads += 1;
    const version = loads;
    await gate;
    return { version };
  };
  return {
    cache,
    load,
    warnings,
    loads: () => loads,
    advance: (ms: number) => void (clock += ms),
    hold: () => {
      let release!: () => void;
      gate = new Promise((resolve) => (release = resolve));
      return () => {
        gate = Promise.resolve();
        release();
      };
    },
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('answer cache (platform/answer-cache.ts)', () => {
  it('answers a repeated question from memory while it is fresh', async () => {
    const { cache, load, loads, advance } = setUp();
    expect(await cache.get('q', load)).to.deep.equal({ version: 1 });
    advance(999);
    expect(await cache.get('q', load)).to.deep.equal({ version: 1 });
    expect(loads()).to.equal(1);
  });

  it('loads a question once however many ask it at the same time', async () => {
    const { cache, load, loads, hold } = setUp();
    const release = hold();
    const answers = Promise.all([cache.get('q', load), cache.get('q', load), cache.get('q', load)]);
    release();
    expect((await answers).map((answer) => answer.version)).to.deep.equal([1, 1, 1]);
    expect(loads()).to.equal(1);
  });

  it('serves a stale answer while one background refresh runs, then the refreshed one', async () => {
    const { cache, load, loads, advance, hold } = setUp();
    await cache.get('q', load);
    advance(1_500);
    const release = hold();
    expect(await cache.get('q', load)).to.deep.equal({ version: 1 });
    expect(await cache.get('q', load)).to.deep.equal({ version: 1 });
    expect(loads()).to.equal(2);
    release();
    await settle();
    expect(await cache.get('q', load)).to.deep.equal({ version: 2 });
  });

  it('loads again before answering once an answer is older than its maximum age', async () => {
    const { cache, load, advance } = setUp();
    await cache.get('q', load);
    advance(10_001);
    expect(await cache.get('q', load)).to.deep.equal({ version: 2 });
  });

  it('forgets everything at forgetAll, and does not store a load that started before it', async () => {
    const { cache, load, loads, hold } = setUp();
    await cache.get('a', load);
    const release = hold();
    const inFlight = cache.get('b', load);
    cache.forgetAll();
    release();
    expect(await inFlight).to.deep.equal({ version: 2 });
    expect(await cache.get('a', load)).to.deep.equal({ version: 3 });
    expect(await cache.get('b', load)).to.deep.equal({ version: 4 });
    expect(loads()).to.equal(4);
  });

  it('never stores a failed load: the next request tries again', async () => {
    const { cache, load } = setUp();
    const failing = () => Promise.reject(new Error('statement timeout'));
    let failure: unknown;
    await cache.get('q', failing).catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(Error);
    expect(await cache.get('q', load)).to.deep.equal({ version: 1 });
  });

  it('keeps serving the stale answer when a background refresh fails, and says so', async () => {
    const { cache, load, advance, warnings } = setUp();
    await cache.get('q', load);
    advance(1_500);
    expect(await cache.get('q', () => Promise.reject(new Error('connection lost')))).to.deep.equal({ version: 1 });
    await settle();
    expect(warnings).to.deep.equal(['test answer refresh failed']);
  });

  it('holds at most `max` answers, dropping the least recently used', async () => {
    const { cache, load, loads } = setUp({ max: 2 });
    await cache.get('a', load);
    await cache.get('b', load);
    await cache.get('a', load);
    await cache.get('c', load);
    expect(loads()).to.equal(3);
    await cache.get('a', load);
    expect(loads()).to.equal(3);
    await cache.get('b', load);
    expect(loads()).to.equal(4);
  });
});
