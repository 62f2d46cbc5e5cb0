import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tokenEndedCloseCode } from '../../server/auth/token-sweeper.ts';
import { hashInviteCode } from '../../server/auth/invite-codes.ts';
import { decodeClaims } from '../../shared/protocol/claims.ts';
import { denialReasons } from '../../shared/protocol/denials.ts';
import { connectPeer, type Peer } from '../helpers/peer.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

// Generous join limits here: the limit itself has its own server below.
const server = useTestServer({ limits: { inviteJoins: { burst: 1000, perSecond: 1000 } } });

const codeOf = (url: string) => new URL(url).hash.slice(1);

async function invite(docId: string, body: Record<string, unknown>, token?: string) {
  return server.api(`/api/docs/${docId}/invites`, { method: 'POST', body, token });
}

async function createdInvite(docId: string, body: Record<string, unknown>) {
  const created = await invite(docId, body);
  expect(created.status).toBe(201);
  return created.body as { inviteId: string; url: string };
}

const join = (code: string, name: unknown) => server.api(`/api/invites/${code}/join`, { method: 'POST', body: { name }, token: null });

describe('invites to a document', () => {
  it('[INV1] [INV4] an editor makes a commenter link; joining by it with a name mints a token of that role, document and name', async () => {
    const id = await server.createDoc('Shared', 'Text.');
    const created = await createdInvite(id, { role: 'commenter' });
    expect(created.inviteId).toMatch(/^[0-9a-z]{16}$/);
    expect(created.url).toMatch(new RegExp(`^${server.url}/join#[\\w-]{24}$`));

    const joined = await join(codeOf(created.url), '  Dana  ');
    expect(joined.status).toBe(201);
    const claims = decodeClaims(joined.body.token)!;
    expect(claims).toMatchObject({ name: 'Dana', role: 'commenter', doc: id });
    expect(claims.exp! - claims.iat).toBeLessThanOrEqual(30 * 24 * 3600);
    // The token is good: it reads the document and names its holder as given.
    expect((await server.api('/api/session', { token: joined.body.token })).body).toEqual({ id: claims.sub, name: 'Dana', role: 'commenter', doc: id });
    expect((await server.api(`/api/docs/${id}/markdown`, { token: joined.body.token })).status).toBe(200);
    // And covers only that document.
    const other = await server.createDoc('Other');
    expect((await server.api(`/api/docs/${other}/markdown`, { token: joined.body.token })).status).toBe(403);

    const listed = await server.api(`/api/docs/${id}/invites`);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([{ inviteId: created.inviteId, role: 'commenter', createdAt: expect.any(String), expiresAt: null, uses: 1, maxUses: null }]);
    const people = await server.api(`/api/docs/${id}/people`);
    expect(people.body).toEqual([{ subject: claims.sub, name: 'Dana', role: 'commenter', lastSeen: expect.any(String) }]);
  });

  it('[INV1] only editors of the document make, list and revoke invites; roles and bodies are checked', async () => {
    const id = await server.createDoc('Guarded');
    for (const role of ['commenter', 'viewer', 'agent'] as const) {
      expect((await invite(id, { role: 'viewer' }, server.token(role))).status).toBe(403);
      expect((await server.api(`/api/docs/${id}/invites`, { token: server.token(role) })).status).toBe(403);
      expect((await server.api(`/api/docs/${id}/people`, { token: server.token(role) })).status).toBe(403);
    }
    const elsewhere = server.token('editor', { doc: await server.createDoc('Elsewhere') });
    expect((await invite(id, { role: 'viewer' }, elsewhere)).status).toBe(403);
    expect((await invite(id, { role: 'agent' })).body.error.code).toBe('INVALID_BODY');
    expect((await invite(id, { role: 'viewer', uses: 0 })).body.error.code).toBe('INVALID_BODY');
    expect((await invite(id, { role: 'viewer', expires: 'soon' })).body.error.code).toBe('INVALID_BODY');
    expect((await invite('nosuchdoc0', { role: 'viewer' })).status).toBe(404);
    expect((await server.api(`/api/docs/${id}/invites`)).body).toEqual([]);

    const created = await createdInvite(id, { role: 'viewer' });
    expect((await server.api(`/api/invites/${created.inviteId}`, { method: 'DELETE', token: server.token('commenter') })).status).toBe(403);
    expect((await server.api(`/api/invites/${created.inviteId}`, { method: 'DELETE', token: elsewhere })).status).toBe(403);
  });

  it('[INV4] a revoked or expired invite admits nobody new (410 INVITE_ENDED); an unknown code is 404', async () => {
    const id = await server.createDoc('Ending');
    const revoked = await createdInvite(id, { role: 'editor' });
    expect((await server.api(`/api/invites/${revoked.inviteId}`, { method: 'DELETE' })).status).toBe(200);
    expect((await server.api(`/api/invites/${revoked.inviteId}`, { method: 'DELETE' })).status).toBe(404);
    expect((await join(codeOf(revoked.url), 'Eve')).body.error.code).toBe('INVITE_ENDED');
    expect((await join(codeOf(revoked.url), 'Eve')).status).toBe(410);

    const expiring = await createdInvite(id, { role: 'viewer', expires: '1s' });
    await server.exec('UPDATE invites SET expires_at = ? WHERE id = ?', [Date.now() - 1, expiring.inviteId]);
    expect((await join(codeOf(expiring.url), 'Eve')).body.error.code).toBe('INVITE_ENDED');
    expect((await server.api(`/api/docs/${id}/invites`)).body).toEqual([]);

    expect((await join('A'.repeat(24), 'Eve')).status).toBe(404);
    expect((await join('short', 'Eve')).status).toBe(404);
    expect((await server.api(`/api/docs/${id}/people`)).body).toEqual([]);
  });

  it('[INV4] a name is required and bounded: nothing is used up by a refused join', async () => {
    const id = await server.createDoc('Names');
    const created = await createdInvite(id, { role: 'viewer', uses: 1 });
    const code = codeOf(created.url);
    for (const name of ['', '   ', 'x'.repeat(61), 42, null]) expect([name, (await join(code, name)).status]).toEqual([name, 422]);
    expect((await join(code, 'Finn')).status).toBe(201);
  });

  it('[INV4] two joins racing for a one-use invite: exactly one gets a token', async () => {
    const id = await server.createDoc('Race');
    const created = await createdInvite(id, { role: 'commenter', uses: 1 });
    const answers = await Promise.all(['Gil', 'Hal', 'Ivy'].map((name) => join(codeOf(created.url), name)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 410, 410]);
    expect((await server.api(`/api/docs/${id}/people`)).body).toHaveLength(1);
    expect((await server.api(`/api/docs/${id}/invites`)).body).toEqual([]);
  });

  it('[INV1] [INV4] any body to the invite and join routes gets 201 or a clear 4xx, and a refused one changes nothing', async () => {
    const id = await server.createDoc('Fuzzed');
    const { url } = await createdInvite(id, { role: 'viewer', uses: 1000 });
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (body) => {
        const made = await invite(id, body as Record<string, unknown>);
        expect([201, 400, 422]).toContain(made.status);
        if (made.status !== 201) expect(made.body.error.code).toMatch(/^INVALID_(BODY|JSON)$/);
        const joined = await server.api(`/api/invites/${codeOf(url)}/join`, { method: 'POST', body, token: null });
        expect([201, 400, 422]).toContain(joined.status);
      }),
      { numRuns: 60 },
    );
    // Each 201 above is one person; nobody else was added.
    const created = (await server.api(`/api/docs/${id}/invites`)).body as { uses: number }[];
    expect((await server.api(`/api/docs/${id}/people`)).body).toHaveLength(created.reduce((sum, each) => sum + each.uses, 0));
  });

  it('[INV2] the code is stored only as its hash', async () => {
    const id = await server.createDoc('Hashed');
    const created = await createdInvite(id, { role: 'viewer' });
    const store = await server.openStore();
    try {
      const stored = await store.invites.get(created.inviteId);
      expect(stored!.codeHash).toBe(hashInviteCode(codeOf(created.url)));
      expect(stored!.codeHash).not.toContain(codeOf(created.url));
    } finally {
      await store.close();
    }
  });

  it('[INV3] a token minted by an invite expires no later than its maker\'s token', async () => {
    const id = await server.createDoc('Bounded');
    const makerExp = Math.floor(Date.now() / 1000) + 3600;
    const maker = server.token('editor', { exp: makerExp });
    const created = await invite(id, { role: 'editor' }, maker);
    expect(created.status).toBe(201);
    const joined = await join(codeOf(created.body.url), 'Jo');
    expect(decodeClaims(joined.body.token)!.exp).toBe(makerExp);
  });

  it('[INV6] removing a person revokes their token and closes their open socket within about a second', async () => {
    const id = await server.createDoc('Removal', 'Text.');
    const created = await createdInvite(id, { role: 'editor' });
    const { token } = (await join(codeOf(created.url), 'Kim')).body;
    const subject = decodeClaims(token)!.sub;
    await server.exec('UPDATE doc_people SET last_seen = 0 WHERE subject = ?', [subject]);
    const peer: Peer = server.track(connectPeer({ wsUrl: server.wsUrl, name: id, token }));
    await peer.synced;
    // Their connection to the text is their last sighting.
    await expect.poll(async () => Date.parse((await server.api(`/api/docs/${id}/people`)).body[0].lastSeen)).toBeGreaterThan(0);
    // What the socket sees, in order: a close (its code) and the refusal of a reconnect.
    const seen: string[] = [];
    peer.provider.configuration.websocketProvider.on('close', ({ event }: { event: { code: number } }) => seen.push(`close ${event.code}`));
    void peer.authenticationFailed.then(() => seen.push('refused'));

    expect((await server.api(`/api/docs/${id}/people/${subject}`, { method: 'DELETE', token: server.token('viewer') })).status).toBe(403);
    expect(seen).toEqual([]);
    expect((await server.api(`/api/docs/${id}/people/${subject}`, { method: 'DELETE' })).status).toBe(200);
    expect(await peer.authenticationFailed).toBe(denialReasons.revokedToken);
    // The server closed the open socket itself, with the token-ended code, before the provider
    // tried again: the removal did not wait for the socket's next handshake.
    expect(seen.slice(0, 2)).toEqual([`close ${tokenEndedCloseCode}`, 'refused']);
    expect((await server.api('/api/session', { token })).body.error.code).toBe('TOKEN_REVOKED');
    expect((await server.api(`/api/docs/${id}/people`)).body).toEqual([]);
    expect((await server.api(`/api/docs/${id}/people/${subject}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('[INV6] the audit log records invites made and revoked, joins and removals', async () => {
    const id = await server.createDoc('Audited');
    const created = await createdInvite(id, { role: 'viewer' });
    const { token } = (await join(codeOf(created.url), 'Lee')).body;
    await server.api(`/api/invites/${created.inviteId}`, { method: 'DELETE' });
    await server.api(`/api/docs/${id}/people/${decodeClaims(token)!.sub}`, { method: 'DELETE' });
    const entries = (await server.api(`/api/docs/${id}/audit`)).body.entries as { action: string; actor: { name: string } }[];
    expect(entries.slice(0, 4).map((entry) => [entry.action, entry.actor.name])).toEqual([
      ['person.removed', 'Owner'],
      ['invite.revoked', 'Owner'],
      ['invite.joined', 'Lee'],
      ['invite.created', 'Owner'],
    ]);
  });
});

describe('invites of a server with a public address', () => {
  const behindProxy = useTestServer({ publicUrl: 'https://docs.example.org' });

  it('[INV2] link to PUBLIC_URL, whatever Host the request came with', async () => {
    const id = await behindProxy.createDoc('Behind a proxy');
    const created = await behindProxy.api(`/api/docs/${id}/invites`, { method: 'POST', body: { role: 'viewer' } });
    expect(created.body.url).toMatch(/^https:\/\/docs\.example\.org\/join#[\w-]{24}$/);
  });
});

describe('joining by invite, many times from one address', () => {
  const limited = useTestServer({ limits: { inviteJoins: { burst: 3, perSecond: 0.01 } } });

  it('[INV5] is rate-limited per address: 429 RATE_LIMITED with Retry-After once the burst is spent', async () => {
    const attempt = () => limited.api(`/api/invites/${'B'.repeat(24)}/join`, { method: 'POST', body: { name: 'Mo' }, token: null });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await attempt()).status);
    expect(statuses).toEqual([404, 404, 404, 429]);
    const refused = await attempt();
    expect(refused.body.error.code).toBe('RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
