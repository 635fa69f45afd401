// Slugs (core/slugs.ts): readable, and free of clashes however many rows want the same one.
import { expect } from 'chai';
import { UniqueIntegrityConstraintViolationError } from 'slonik';
import { slugify, withFreeSlug, withRandomSuffix } from '../../core/slugs.ts';

const clash = (constraint: string) => new UniqueIntegrityConstraintViolationError(Object.assign(new Error('duplicate key'), { constraint }));

describe('slugs (core/slugs.ts)', () => {
  it('makes a readable slug of any text', () => {
    expect(slugify('Save the Élysée Park!')).to.equal('save-the-elysee-park');
    expect(slugify('¿¡')).to.equal('item');
  });

  it('suffixes six hex digits by default and as many as asked, within the 60 characters of a slug', () => {
    expect(withRandomSuffix('ada-lovelace')).to.match(/^ada-lovelace-[0-9a-f]{6}$/);
    expect(withRandomSuffix('ada-lovelace', 10)).to.match(/^ada-lovelace-[0-9a-f]{10}$/);
    const long = 'x'.repeat(60);
    expect(withRandomSuffix(long)).to.have.length(60);
    expect(withRandomSuffix(long, 10)).to.have.length(60);
  });

  it('tries a suffixed slug each time the constraint says another row has it, then answers the insert', async () => {
    const tried: string[] = [];
    const taken = new Set(['ada-lovelace']);
    const inserted = await withFreeSlug('ada-lovelace', 'users_slug_unique', async (slug) => {
      tried.push(slug);
      // The first suffix drawn clashes too, as a random suffix can.
      if (taken.has(slug) || tried.length === 2) throw clash('users_slug_unique');
      return `row ${slug}`;
    });
    expect(tried).to.have.length(3);
    expect(tried[0]).to.equal('ada-lovelace');
    for (const slug of tried.slice(1)) expect(slug).to.match(/^ada-lovelace-[0-9a-f]{6}$/);
    expect(inserted).to.equal(`row ${tried[2]}`);
  });

  it('lets any other error through at once, and gives up after a few clashes', async () => {
    let attempts = 0;
    const otherConstraint = await withFreeSlug('x', 'users_slug_unique', async () => {
      attempts += 1;
      throw clash('users_identity_unique');
    }).catch((error: UniqueIntegrityConstraintViolationError) => error.constraint);
    expect(otherConstraint).to.equal('users_identity_unique');
    expect(attempts).to.equal(1);

    attempts = 0;
    const gaveUp = await withFreeSlug('x', 'users_slug_unique', async () => {
      attempts += 1;
      throw clash('users_slug_unique');
    }).catch((error: UniqueIntegrityConstraintViolationError) => error.constraint);
    expect(gaveUp).to.equal('users_slug_unique');
    expect(attempts).to.be.within(2, 10);
  });
});
