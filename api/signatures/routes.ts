// /v1/petitions/{id}/signatures: sign, remove mine, list, map points, export.
import { loadViewer } from '../../core/petitions/viewer.ts';
import { Type } from '@sinclair/typebox';
import type { DatabasePool } from 'slonik';
import { actorOf } from '../../core/events/record-event.ts';
import { sendData, sendList, type RallyContext } from '../http/context.ts';
import { sendKeysetList } from '../http/pagination.ts';
import { exportStream, keysetBatches } from '../http/export-stream.ts';
import { createCursorCodec, paginate } from '../../core/pagination/keyset.ts';
import { assertThat, RallyError } from '../http/problem.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { rememberAnswer } from '../http/idempotency.ts';
import { ANONYMOUS, assertCanManage, assertCanRead, canManage, viewerOf, type Viewer } from '../../core/petitions/policy.ts';
import { findPetitionById, type PetitionRow } from '../../core/petitions/queries.ts';
import type { SignatureFeed } from '../../core/signatures/live-feed.ts';
import { locateSigner } from '../../core/signatures/geolocation.ts';
import { liveSignatureCount } from '../../core/petitions/queries.ts';
import { exportBatch, geoPoints, listSignatures, removeSignature, type SignatureRow } from '../../core/signatures/queries.ts';
import type { CaptchaVerifier } from '../../core/signatures/recaptcha.ts';
import {
  ExportQuery,
  GeoParams,
  GeoPointList,
  GeoQuery,
  PetitionParams,
  SignatureCreate,
  SignatureCreated,
  SignatureList,
  SignatureListQuery,
} from './schemas.ts';
import type { SignBatcher } from '../../core/signatures/sign-batcher.ts';
import { rememberedWithSignature } from '../../core/signatures/sign.ts';
import { networkBlockHash } from '../../core/signatures/network-block.ts';
import { countedSignature } from '../../core/signatures/sign-attempts.ts';

export type SignatureRouteDependencies = {
  db: DatabasePool;
  signatures: SignBatcher;
  verifyCaptcha: CaptchaVerifier;
  feed: SignatureFeed;
  networkKey?: Buffer;
};

const listCursor = createCursorCodec(Type.Tuple([Type.String({ format: 'date-time' }), Type.String({ format: 'uuid' })]), 'signatures');
const geoCursor = createCursorCodec(Type.Tuple([Type.Integer(), Type.String({ maxLength: 700 })]), 'signatures:geo');
const EXPORT_BATCH = 1_000;

function assertMaySeeSignatures(petition: PetitionRow, viewer: Viewer): 'all' | 'count' {
  if (canManage(viewer, petition) || petition.signature_privacy === 'public') return 'all';
  if (petition.signature_privacy === 'count_only') return 'count';
  throw new RallyError('forbidden', "Only the petition's creator may see who signed it.", { code: 'signatures_private' });
}

const tag = 'Signatures';

async function readablePetition(db: DatabasePool, ctx: RallyContext, id: string, accessCode?: string) {
  const petition = await findPetitionById(db, id);
  assertCanRead(viewerOf(ctx.state.principal), petition, accessCode);
  return petition;
}

export function createSignatureRoutes(deps: SignatureRouteDependencies): AnyRouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/petitions/:id/signatures',
      operationId: 'signPetition',
      tag,
      auth: 'required',
      scope: 'write:signatures',
      permission: 'write',
      rateLimit: 'sign',
      summary: 'Sign a petition',
      description:
        'A second signature by the same person is 409. The answer carries the new count, and `milestone_reached` when this ' +
        'signature claimed a milestone. Emits `signature.created` (and `signature.milestone`). A signature past the hourly ' +
        'threshold of its network block or email domain is still counted, and flagged for the moderators; only their hard ' +
        "ceilings answer 429 `signing_limit`. A signer on the administrators' block-list is refused with 403 `signing_blocked`.",
      params: PetitionParams,
      body: SignatureCreate,
      responses: {
        201: { description: 'Signed; milestone_reached is true for the signature that claimed a milestone', schema: SignatureCreated },
        403: {
          description:
            'The signer’s email address is not verified (`email_unverified`), the address, network or email domain is on the ' +
            'block-list (`signing_blocked`), or a private petition needs its access code',
        },
        409: { description: 'Already signed, or the petition is not active' },
      },
      async handler(ctx, { params, body }) {
        const principal = ctx.state.principal!;
        const result = await countedSignature(async () => {
          await deps.verifyCaptcha(body.recaptchaToken, ctx.state.clientIp);
          // Written together with the other signatures arriving now (group commit); answered once committed,
          // with the Idempotency-Key answer committed in the same transaction.
          return deps.signatures.sign({
            input: {
              petitionId: params.id,
              userId: principal.userId,
              viewer: viewerOf(principal),
              actor: actorOf(principal),
              comment: body.comment ?? null,
              isAnonymous: body.is_anonymous ?? false,
              displayLocation: body.display_location ?? null,
              place: locateSigner(ctx.state.clientIp, body.display_location ?? null),
              referrerSlug: body.ref ?? null,
              accessCode: body.access_code ?? null,
              source: body.source ?? null,
              networkHash: deps.networkKey ? networkBlockHash(deps.networkKey, ctx.state.clientIp) : null,
              flags: ctx.state.signingFlags ?? null,
            },
            withinWrite: rememberedWithSignature(rememberAnswer(ctx, 201)),
          });
        });
        deps.feed.publish({ type: 'signature.created', petition_id: params.id, signature_count: result.signature_count, created_at: result.created_at });
        const { created_at: _createdAt, ...data } = result;
        sendData(ctx, data, 201);
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/petitions/:id/signatures/me',
      operationId: 'unsignPetition',
      tag,
      auth: 'required',
      scope: 'write:signatures',
      permission: 'destroy',
      summary: 'Remove your signature',
      description: 'Withdraw your signature: the petition’s count drops at once and `signature.removed` is emitted; 404 when you had not signed.',
      params: PetitionParams,
      responses: { 204: { description: 'Removed' }, 404: { description: 'You had not signed' } },
      async handler(ctx, { params }) {
        const principal = ctx.state.principal!;
        const count = await removeSignature(deps.db, params.id, principal.userId, actorOf(principal));
        assertThat(count !== null, 'not-found', 'You have not signed this petition.');
        deps.feed.publish({ type: 'signature.removed', petition_id: params.id, signature_count: count, created_at: new Date().toISOString() });
        ctx.status = 204;
      },
    }),
    ...createSignatureReadRoutes(deps),
  ];
}

/** A petition's signatures as its readers and managers see them: the list, the map, the export. */
function createSignatureReadRoutes(deps: SignatureRouteDependencies): AnyRouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/petitions/:id/signatures',
      operationId: 'listSignatures',
      tag,
      auth: 'optional',
      scope: 'read:signatures',
      permission: 'read',
      summary: "List a petition's signatures",
      description: 'Who signed, newest first (as the petition’s signature privacy allows).',
      params: PetitionParams,
      query: SignatureListQuery,
      responses: { 200: { description: 'A page of signatures; anonymous ones have user null', schema: SignatureList } },
      async handler(ctx, { params, query }) {
        const petition = await readablePetition(deps.db, ctx, params.id);
        const visible = assertMaySeeSignatures(petition, viewerOf(ctx.state.principal));
        const total = await liveSignatureCount(deps.db, params.id);
        if (visible === 'count') return sendList(ctx, [], { next_cursor: null, has_more: false, total_count: total });
        const rows = await listSignatures(deps.db, params.id, listCursor.decode(query.cursor), query.limit);
        const { page, pagination } = paginate(rows, query.limit, (row: SignatureRow) => listCursor.encode([row.created_at, row.id]));
        sendList(ctx, page, { ...pagination, total_count: total });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/petitions/:id/signatures/geo',
      operationId: 'signatureMap',
      tag,
      auth: 'none',
      summary: 'Map recent signatures by city',
      description: 'Signatures per city over the last hours (of one petition, or global).',
      params: GeoParams,
      query: GeoQuery,
      responses: { 200: { description: 'Points, busiest first', schema: GeoPointList } },
      async handler(ctx, { params, query }) {
        const petitionId = params.id === 'global' ? null : params.id;
        if (petitionId) {
          const petition = await readablePetition(deps.db, ctx, petitionId);
          assertMaySeeSignatures(petition, ANONYMOUS);
        }
        await sendKeysetList(ctx, query, {
          cursor: geoCursor,
          rows: (after, limit) => geoPoints(deps.db, petitionId, query.hours, after, limit),
          position: (row) => [row.count, `${row.city}|${row.region}|${row.country}`],
          present: (row) => row,
        });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/petitions/:id/signatures/export',
      operationId: 'exportSignatures',
      tag,
      auth: 'required',
      scope: 'read:signatures',
      permission: 'read',
      summary: "Export a petition's signatures",
      description: 'All signatures as CSV or JSON, streamed (creator only).',
      params: PetitionParams,
      query: ExportQuery,
      responses: { 200: { description: 'The signatures', contentType: 'text/csv' } },
      async handler(ctx, { params, query }) {
        assertCanManage(await loadViewer(deps.db, ctx.state.principal), await findPetitionById(deps.db, params.id));
        const batches = keysetBatches(
          (after: readonly [string, string] | undefined) => exportBatch(deps.db, params.id, after, EXPORT_BATCH),
          (row) => [row.created_at, row.id] as const,
          EXPORT_BATCH,
        );
        ctx.type = query.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8';
        ctx.set('Content-Disposition', `attachment; filename="signatures-${params.id}.${query.format}"`);
        ctx.body = exportStream(
          query.format,
          ['id', 'signer_name', 'signer_email', 'comment', 'is_anonymous', 'display_location', 'city', 'country', 'created_at'],
          batches,
        );
      },
    }),
  ];
}
