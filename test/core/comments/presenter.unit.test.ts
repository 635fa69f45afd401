import { expect } from 'chai';
import { DELETED_BODY, toComment } from '../../../core/comments/presenter.ts';
import type { CommentRow } from '../../../core/comments/queries.ts';

function commentRow(overrides: Partial<CommentRow> = {}): CommentRow {
  return {
    id: 'c1',
    petition_id: 'p1',
    user_id: 'u1',
    parent_id: null,
    body: 'I agree.',
    is_hidden: false,
    is_deleted: false,
    reply_count: 1,
    depth: 0,
    author: { id: 'u1', display_name: 'Ada', slug: 'ada', avatar_url: null },
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

describe('comment presenter (core/comments/presenter.ts)', () => {
  it('shows a live comment with its author and replies', () => {
    const reply = toComment(commentRow({ id: 'c2', parent_id: 'c1', reply_count: 0 }), []);
    const shown = toComment(commentRow(), [reply]);
    expect(shown).to.include({ id: 'c1', body: 'I agree.', is_deleted: false });
    expect(shown.author).to.deep.equal({ id: 'u1', display_name: 'Ada', slug: 'ada', avatar_url: null });
    expect(shown.replies).to.deep.equal([reply]);
  });

  it('keeps a deleted comment in the thread with a placeholder body and no author', () => {
    const shown = toComment(commentRow({ is_deleted: true, body: 'something regrettable' }), []);
    expect(shown.body).to.equal(DELETED_BODY);
    expect(shown.author).to.equal(null);
    expect(JSON.stringify(shown)).to.not.include('regrettable');
  });

  it('does not expose the cursor position column', () => {
    expect(toComment(commentRow(), [])).to.not.have.property('position_at');
  });
});
