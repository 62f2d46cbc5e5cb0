import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { Rejection } from '../../shared/protocol/rejection.ts';
import type { Claims } from '../../shared/protocol/claims.ts';
import { may } from '../../shared/protocol/permissions.ts';
import { randomId } from '../../shared/model/ids.ts';
import {
  invitePath,
  inviteRoles,
  JoinInvite,
  NewInvite,
  type CreatedInvite,
  type InviteRole,
  type InviteView,
  type JoinedInvite,
  type PersonView,
} from '../../shared/wire/invites.ts';
import { hashInviteCode, isInviteCode, newInviteCode } from '../auth/invite-codes.ts';
import { defaultTokenSeconds, parseLifetime } from '../auth/expiry.ts';
import { newTokenId, type ClaimsInput } from '../auth/tokens.ts';
import { actorOf, recordAuditAs } from '../audit/record-audit.ts';
import type { Rate } from '../limits.ts';
import { TokenBucket } from '../token-bucket.ts';
import type { InviteRecord } from '../store/invite-book.ts';
import type { Store } from '../store/store.ts';
import { forbidden, invalidBody, notFound } from './api-error.ts';
import type { OpenRouteHandler, RouteHandler } from './api.ts';
import { readableDoc } from './doc-access.ts';
import { json } from './reply.ts';
import type { Router } from './router.ts';
import { readInput } from '../read-input.ts';

export interface InviteRouteDeps {
  store: Store;
  /** Signs a token with the server's newest key. */
  sign(claims: ClaimsInput): Promise<string>;
  /** Joins per IP address (INV5). */
  joinRate: Rate;
  /** Where people reach the server (`PUBLIC_URL`); null: the `Host` the request came to. */
  publicUrl: string | null;
}

/** INV3: an invite gives at most what its maker has; editors rank highest of the roles it may give. */
const rank: Record<InviteRole, number> = { viewer: 0, commenter: 1, editor: 2 };

/**
 * INV1–INV6: an editor's invites to a document (`POST`, `GET /api/docs/:id/invites`, `DELETE
 * /api/invites/:inviteId`), the people who joined by them (`GET`, `DELETE
 * /api/docs/:id/people[/:subject]`), and joining, which needs no token (`POST
 * /api/invites/:code/join`, on `openRoutes`).
 */
export function addInviteRoutes(router: Router<RouteHandler>, openRoutes: Router<OpenRouteHandler>, deps: InviteRouteDeps): void {
  const { store } = deps;

  /** The document if the principal may share it: 403 for other roles, and the refusals of readableDoc. */
  const shareableDoc = async (principal: Claims, docId: string) => {
    const doc = await readableDoc(store, principal, docId);
    if (!may(principal.role, 'doc.share')) throw forbidden('Only editors may share a document.');
    return doc;
  };

  router.add('POST', '/api/docs/:id/invites', async ({ principal, params, req, body }) => {
    const doc = await shareableDoc(principal, params.id);
    const input = readInput(NewInvite, await body());
    const makerRole = principal.role as InviteRole;
    if (!inviteRoles.includes(makerRole) || rank[input.role] > rank[makerRole]) throw forbidden('An invite cannot give more than you have.');
    const now = Date.now();
    const code = newInviteCode();
    const invite = {
      id: randomId(16),
      codeHash: hashInviteCode(code),
      docId: doc.id,
      role: input.role,
      createdBy: principal.sub,
      createdAt: now,
      expiresAt: lifetimeEnd(input.expires, now),
      maxUses: input.uses ?? null,
      grantUntil: principal.exp ?? null,
    };
    await store.invites.create(invite);
    await recordAuditAs(store.audit, actorOf(principal), 'invite.created', doc.id);
    const created: CreatedInvite = { inviteId: invite.id, url: (deps.publicUrl ?? originOf(req)) + invitePath(code) };
    return json(201, created);
  });

  router.add('GET', '/api/docs/:id/invites', async ({ principal, params }) => {
    const doc = await shareableDoc(principal, params.id);
    const now = Date.now();
    const views: InviteView[] = (await store.invites.list(doc.id)).filter((invite) => !hasEnded(invite, now)).map(inviteView);
    return json(200, views);
  });

  router.add('DELETE', '/api/invites/:inviteId', async ({ principal, params }) => {
    const invite = await store.invites.get(params.inviteId);
    if (!invite || invite.revokedAt !== null) throw notFound('There is no such invite.');
    await shareableDoc(principal, invite.docId);
    if (await store.invites.revoke(invite.id, Date.now())) await recordAuditAs(store.audit, actorOf(principal), 'invite.revoked', invite.docId);
    return json(200, { inviteId: invite.id, revoked: true });
  });

  router.add('GET', '/api/docs/:id/people', async ({ principal, params }) => {
    const doc = await shareableDoc(principal, params.id);
    const views: PersonView[] = (await store.invites.people(doc.id)).map((person) => ({
      subject: person.subject,
      name: person.name,
      role: person.role,
      lastSeen: new Date(person.lastSeen).toISOString(),
    }));
    return json(200, views);
  });

  router.add('DELETE', '/api/docs/:id/people/:subject', async ({ principal, params }) => {
    const doc = await shareableDoc(principal, params.id);
    const person = await store.invites.removePerson(doc.id, params.subject);
    if (!person) throw notFound('There is no such person on this document.');
    // TOKEN3, TOKEN4: refused from the next request on, open sockets closed within a second.
    await store.revocations.revoke(person.tokenId, Date.now());
    try {
      await store.audit.record({ action: 'person.removed', docId: doc.id, actor: actorOf(principal), tokenId: person.tokenId });
    } catch (error) {
      console.error('[tandem] audit entry not written:', error);
    }
    return json(200, { subject: person.subject, removed: true });
  });

  const joinsByIp = new Map<string, TokenBucket>();
  openRoutes.add('POST', '/api/invites/:code/join', async ({ req, params, body }) => {
    admitJoin(joinsByIp, req.socket.remoteAddress ?? '', deps.joinRate);
    if (!isInviteCode(params.code)) throw noSuchInvite();
    const { name } = readInput(JoinInvite, await body());
    const at = Date.now();
    const subject = `person-${randomId(12)}`;
    const tokenId = newTokenId();
    const outcome = await store.invites.join(hashInviteCode(params.code), at, (invite) => ({
      docId: invite.docId,
      subject,
      name,
      role: invite.role,
      tokenId,
    }));
    if (!outcome.ok) throw outcome.reason === 'unknown' ? noSuchInvite() : inviteEnded();
    const { invite } = outcome;
    const iat = Math.floor(at / 1000);
    const exp = Math.min(iat + defaultTokenSeconds, invite.grantUntil ?? Infinity);
    const token = await deps.sign({ sub: subject, name, role: invite.role, doc: invite.docId, iat, exp, jti: tokenId });
    await recordAuditAs(store.audit, { id: subject, name, role: invite.role }, 'invite.joined', invite.docId);
    const joined: JoinedInvite = { token };
    return json(201, joined);
  });
}

const noSuchInvite = () => notFound('There is no such invite — ask for a new link.');
const inviteEnded = () => new Rejection(410, 'INVITE_ENDED', 'This invite has ended — ask for a new link.');

/** The end of an invite given `expires` (`7d`, `12h`, `never`); null for none. */
function lifetimeEnd(expires: string | undefined, now: number): number | null {
  if (expires === undefined) return null;
  try {
    const seconds = parseLifetime(expires);
    return seconds === null ? null : now + seconds * 1000;
  } catch {
    throw invalidBody(`"expires" must be a count and a unit (s, m, h or d), e.g. 7d or 12h, or "never"; not "${expires}".`);
  }
}

function hasEnded(invite: InviteRecord, now: number): boolean {
  return (invite.expiresAt !== null && invite.expiresAt <= now) || (invite.maxUses !== null && invite.uses >= invite.maxUses);
}

function inviteView(invite: InviteRecord): InviteView {
  return {
    inviteId: invite.id,
    role: invite.role,
    createdAt: new Date(invite.createdAt).toISOString(),
    expiresAt: invite.expiresAt === null ? null : new Date(invite.expiresAt).toISOString(),
    uses: invite.uses,
    maxUses: invite.maxUses,
  };
}

/** INV5: a bucket per IP address; the full ones are forgotten now and then. */
function admitJoin(buckets: Map<string, TokenBucket>, ip: string, rate: Rate): void {
  let bucket = buckets.get(ip);
  if (!bucket) {
    if (buckets.size > 10_000) for (const [key, each] of buckets) if (each.isFull()) buckets.delete(key);
    bucket = new TokenBucket(rate);
    buckets.set(ip, bucket);
  }
  if (!bucket.take()) {
    throw new Rejection(429, 'RATE_LIMITED', 'Too many attempts to join; wait a little.', { retryAfter: bucket.retryAfterSeconds() });
  }
}

/** `http(s)://host` as the request reached this server, for the absolute link of an invite. */
function originOf(req: IncomingMessage): string {
  const scheme = (req.socket as TLSSocket).encrypted ? 'https' : 'http';
  return `${scheme}://${req.headers.host ?? 'localhost'}`;
}
