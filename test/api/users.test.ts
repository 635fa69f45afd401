import { expect } from 'chai';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login, type TestUser } from '../support/identity.ts';
import { startApi, type RunningApi } from '../support/processes.ts';
import { withProductionApi } from '../support/production-api.ts';

describe('users', function () {
  this.timeout(60_000);
  let api: RunningApi;
  let user: TestUser;
  let token: string;

  before(async () => {
    api = await startApi();
    user = await createTestUser({ name: 'Ada Lovelace' });
    token = (await login(api.baseUrl, user)).accessToken;
  });
  after(() => api.stop());

  const patchMe = (body: unknown) =>
    fetch(`${api.baseUrl}/v1/users/me`, { method: 'PATCH', headers: { 'content-type': 'application/json', ...bearer(token) }, body: JSON.stringify(body) });

  describe('PATCH /v1/users/me', () => {
    it('changes the profile and merges notification preferences', async () => {
      expect((await patchMe({ bio: 'Mathematician', notification_prefs: { milestone: { in_app: true, email: false } } })).status).to.equal(200);
      const response = await patchMe({ notification_prefs: { victory: { in_app: false, email: true } } });
      const { data } = await json(response);
      expect(data.bio).to.equal('Mathematician');
      expect(data.notification_prefs).to.deep.equal({ milestone: { in_app: true, email: false }, victory: { in_app: false, email: true } });
    });

    it('answers 422 for a display name over 100 characters and an unknown field', async () => {
      const response = await patchMe({ display_name: 'x'.repeat(101), shoe_size: 42 });
      expect(response.status).to.equal(422);
      const errors = (await json(response)).errors.map((error: { field: string; code: string }) => `${error.field}:${error.code}`);
      expect(errors).to.include.members(['display_name:too_big', 'shoe_size:unknown_field']);
    });
  });

  describe('PATCH /v1/users/me avatar_url', () => {
    it('takes an https URL and answers 422 for javascript: and other non-web URIs', async () => {
      expect((await patchMe({ avatar_url: 'https://images.example.org/ada.png' })).status).to.equal(200);
      for (const avatar_url of ['javascript:alert(document.cookie)', 'data:text/html,<script>', 'ftp://example.org/a.png']) {
        const response = await patchMe({ avatar_url });
        expect(response.status, avatar_url).to.equal(422);
        expect((await json(response)).errors[0].field, avatar_url).to.equal('avatar_url');
      }
    });
  });

  describe('PATCH /v1/users/me avatar_url in production', () => {
    it('answers 422 for a plain http URL and takes https', async () => {
      await withProductionApi({}, async (production) => {
        const patch = (avatar_url: string) =>
          fetch(`${production.baseUrl}/v1/users/me`, {
            method: 'PATCH',
            headers: { 'content-type': 'application/json', ...bearer(token) },
            body: JSON.stringify({ avatar_url }),
          });
        const refused = await patch('http://images.example.org/ada.png');
        expect(refused.status).to.equal(422);
        expect((await json(refused)).errors[0]).to.include({ field: 'avatar_url', code: 'invalid_format' });
        expect((await patch('https://images.example.org/ada.png')).status).to.equal(200);
      });
    });

    it('still takes http outside production', async () => {
      expect((await patchMe({ avatar_url: 'http://images.example.org/ada.png' })).status).to.equal(200);
    });
  });

  describe('GET /v1/users/{slug}', () => {
    it('answers the public profile without the email', async () => {
      const response = await fetch(`${api.baseUrl}/v1/users/${user.slug}`);
      expect(response.status).to.equal(200);
      const { data } = await json(response);
      expect(user.slug).to.match(/^ada-lovelace/);
      expect(data).to.include({ id: user.id, slug: user.slug, petition_count: 0 }).and.not.have.property('email');
    });

    it('answers 404 for an unknown slug', async () => {
      expect((await fetch(`${api.baseUrl}/v1/users/nobody-at-all`)).status).to.equal(404);
    });
  });
});
