// /v1/users/me (and its alias /v1/me), /v1/users/{slug}.
import type { DatabasePool } from 'slonik';
import { sendData, type RallyContext } from '../http/context.ts';
import { assertThat } from '../http/problem.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { assertWebUrl } from '../http/web-urls.ts';
import { findUserById, findUserBySlug, updateUser } from '../../core/users/queries.ts';
import { PublicProfileEnvelope, SlugParams, toPublicProfile, toUser, UserEnvelope, UserUpdate } from './schemas.ts';

/** `httpsOnly` (production): avatar_url must be https (http/web-urls.ts). */
export function createUserRoutes(deps: { db: DatabasePool; httpsOnly?: boolean }): AnyRouteSpec[] {
  async function showMe(ctx: RallyContext) {
    const user = await findUserById(deps.db, ctx.state.principal!.userId);
    assertThat(user, 'not-found', 'Your user record no longer exists.');
    sendData(ctx, toUser(user));
  }
  const me = {
    tag: 'Users',
    auth: 'required',
    permission: 'read',
    responses: { 200: { description: 'Your profile', schema: UserEnvelope } },
    handler: showMe,
  } as const;

  return [
    defineRoute({
      ...me,
      scope: 'read:profile',
      method: 'get',
      path: '/v1/users/me',
      operationId: 'getMe',
      summary: 'Get your profile',
      description: 'Your own profile.',
    }),
    defineRoute({
      ...me,
      scope: 'read:profile',
      method: 'get',
      path: '/v1/me',
      operationId: 'getMeAlias',
      summary: 'Get your profile (alias)',
      description: 'Your own profile (alias of /v1/users/me).',
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/users/me',
      operationId: 'updateMe',
      tag: 'Users',
      auth: 'required',
      scope: 'write:profile',
      permission: 'write',
      summary: 'Update your profile',
      description: 'Change your display name, bio, avatar or notification preferences (merged).',
      body: UserUpdate,
      responses: { 200: { description: 'The updated profile', schema: UserEnvelope } },
      async handler(ctx, { body }) {
        assertWebUrl(deps.httpsOnly ?? false, 'avatar_url', body.avatar_url);
        sendData(ctx, toUser(await updateUser(deps.db, ctx.state.principal!.userId, body)));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/users/:slug',
      operationId: 'getUserProfile',
      tag: 'Users',
      auth: 'none',
      summary: "Get a user's profile",
      description: "Someone's public profile.",
      params: SlugParams,
      responses: { 200: { description: 'The public profile', schema: PublicProfileEnvelope } },
      async handler(ctx, { params }) {
        const user = await findUserBySlug(deps.db, params.slug);
        assertThat(user, 'not-found', `There is no user "${params.slug}".`);
        sendData(ctx, toPublicProfile(user));
      },
    }),
  ];
}
