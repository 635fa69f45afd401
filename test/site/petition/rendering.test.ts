// The page and widget renderers on their own, for the states of the call to action and for the
// escaping rules. A petition under review is not rendered at all (review-notice.ts; test/site/petition/pages.test.ts).
import { signPanel } from '../../../site/sign/sign-panel.ts';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { PublicPetition } from '../../../core/public-petition.ts';
import { paragraphs } from '../../../platform/html.ts';
import { renderPetitionPage } from '../../../site/petition/petition-page.ts';
import { renderWidgetPage } from '../../../site/petition/widget-page.ts';

const PUBLIC_URL = 'https://rally.example';

function petitionData(status: PublicPetition['petition']['status']): PublicPetition {
  const now = new Date().toISOString();
  return {
    petition: {
      id: randomUUID(),
      slug: 'quiet-streets',
      title: 'Quiet streets',
      description: 'A description long enough for a petition on this site.',
      status,
      creator_id: randomUUID(),
      org_id: null,
      category: null,
      creator: { id: randomUUID(), display_name: 'Lee', slug: 'lee', bio: null, avatar_url: null, petition_count: 1 },
      tags: [],
      image_url: null,
      signature_goal: 100,
      visibility: 'public',
      access_code: null,
      location_city: null,
      location_region: null,
      location_country: null,
      signature_privacy: 'public',
      victory_message: null,
      live_signature_count: 7,
      ranked_signature_count: 7,
      trending_score: 0,
      created_at: now,
      updated_at: now,
      published_at: now,
      closed_at: null,
      signer_data_deleted_at: null,
    },
    image: null,
    decisionMakers: [],
    responses: [],
    updates: [],
  };
}

describe('petition page rendering', () => {
  it('shows the sign button on an active petition and a notice instead on a closed one', () => {
    for (const render of [
      (data: PublicPetition) => renderPetitionPage(data, PUBLIC_URL, signPanel(data.petition.slug, { kind: 'visitor' }), null),
      (data: PublicPetition) => renderWidgetPage(data, PUBLIC_URL, { theme: 'light', showDescription: false }),
    ]) {
      expect(render(petitionData('active'))).to.include('Sign this petition');
      expect(render(petitionData('closed')))
        .to.include('closed')
        .and.not.include('Sign this petition');
    }
  });

  it('keeps user text to paragraphs, line breaks and http(s) links', () => {
    expect(paragraphs('One <b>bold</b>\nline\n\nhttps://a.example/x?y=1&z=2. javascript:alert(1) <a href="javascript:x">y</a>').value).to.equal(
      '<p>One &lt;b&gt;bold&lt;/b&gt;<br>line</p><p><a href="https://a.example/x?y=1&amp;z=2" ' +
        'rel="nofollow ugc noopener">https://a.example/x?y=1&amp;z=2</a>. ' +
        'javascript:alert(1) &lt;a href=&quot;javascript:x&quot;&gt;y&lt;/a&gt;</p>',
    );
  });

  describe("says when signers' details are deleted (RALLY_SIGNER_DATA_RETENTION, issue 46)", () => {
    const DAYS_180 = 180 * 86_400_000;
    const page = (data: PublicPetition, retentionMs: number | null) =>
      renderPetitionPage(data, PUBLIC_URL, signPanel(data.petition.slug, { kind: 'visitor' }), retentionMs);
    const closedOn = (closedAt: string, deletedAt: string | null = null) => {
      const data = petitionData('closed');
      return { ...data, petition: { ...data.petition, closed_at: closedAt, signer_data_deleted_at: deletedAt } };
    };

    it('on a running petition: how long after it closes', () => {
      expect(page(petitionData('active'), DAYS_180)).to.include('Signers&#39; names and details are deleted 180 days after this petition closes.');
    });

    it('on a closed petition: the date they will be deleted', () => {
      const closedAt = new Date(Date.now() - 86_400_000).toISOString();
      const due = new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' }).format(
        new Date(Date.parse(closedAt) + DAYS_180),
      );
      expect(page(closedOn(closedAt), DAYS_180)).to.include(`Signers&#39; names and details will be deleted on ${due}`);
    });

    it('once deleted: the date they were', () => {
      expect(page(closedOn('2025-01-01T00:00:00.000Z', '2025-06-30T10:00:00.000Z'), DAYS_180)).to.include(
        'Signers&#39; names and details were deleted on June 30, 2025',
      );
    });

    it('says nothing with the retention off', () => {
      expect(page(closedOn('2025-01-01T00:00:00.000Z'), null)).to.not.include('data-signer-data');
    });
  });
});
