// Which outbox events become notifications for a petition's creator (core/notifications/from-events.ts).
import { expect } from 'chai';
import { notificationsForEvents, type DispatchedEvent } from '../../core/notifications/from-events.ts';

const base: DispatchedEvent = {
  id: 'e1',
  type: 'petition.victory',
  actor_type: 'user',
  actor_id: 'admin-1',
  petition_id: 'p1',
  data: {},
  creator_id: 'creator-1',
  petition_title: 'Save the park',
};

describe('notifications from events', () => {
  it('tells the creator about a victory, a milestone and a decision-maker response', () => {
    const made = notificationsForEvents([
      { ...base, data: { victory_message: 'We did it' } },
      { ...base, id: 'e2', type: 'signature.milestone', actor_type: 'system', actor_id: null, data: { milestone: 1000 } },
      { ...base, id: 'e3', type: 'response.submitted', actor_type: 'decision_maker', actor_id: 'dm-1' },
    ]);
    expect(made.map((n) => [n.userId, n.type, n.dedupeKey])).to.deep.equal([
      ['creator-1', 'petition.victory', 'event:e1'],
      ['creator-1', 'petition.milestone', 'event:e2'],
      ['creator-1', 'response.submitted', 'event:e3'],
    ]);
    expect(made[0]!.body).to.equal('We did it');
    expect(made[1]!.title).to.equal('“Save the park” reached 1,000 signatures');
  });

  it('says nothing about what the creator did themselves, or about other events', () => {
    expect(
      notificationsForEvents([
        { ...base, actor_id: 'creator-1' },
        { ...base, type: 'signature.created' },
        { ...base, creator_id: null, petition_id: null },
      ]),
    ).to.deep.equal([]);
  });
});
