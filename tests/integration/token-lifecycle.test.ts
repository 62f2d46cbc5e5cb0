import { describe, expect, it } from 'vitest';
import { addKey } from '../../server/auth/keys.ts';
import { tokenEndedCloseCode } from '../../server/auth/token-sweeper.ts';
import { decodeClaims } from '../../shared/protocol/claims.ts';
import { denialReasons } from '../../shared/protocol/denials.ts';
import { appendParagraph } from '../helpers/doc-builder.ts';
import { connectPeer, waitFor, type Peer } from '../helpers/peer.ts';
import { readBlocks } from '../../shared/model/doc-content.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

const server = useTestServer();
const now = () => Math.floor(Date.now() / 1000);

function connect(name: string, token: string): Peer {
  return server.track(connectPeer({ wsUrl: server.wsUrl, name, token }));
}

/** Revokes as `tandem revoke` does: through its own connection to the server's database. */
async function revoke(token: string): Promise<void> {
  await server.revoke(decodeClaims(token)!.jti!, null);
}

/** The close codes the peer's WebSocket has seen. */
function closeCodes(peer: Peer): number[] {
  const codes: number[] = [];
  peer.provider.configuration.websocketProvider.on('close', ({ event }: { event: { code: number } }) => codes.push(event.code));
  return codes;
}

describe('token expiry and revocation over HTTP', () => {
  it('[TOKEN2] answers 401 TOKEN_EXPIRED to an expired token', async () => {
    const token = server.token('editor', { iat: now() - 120, exp: now() - 60 });
    const response = await server.api('/api/docs', { token });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ error: { code: 'TOKEN_EXPIRED', message: 'Your link has expired — ask for a new one.' } });
  });

  it('[TOKEN3] accepts a token until it is revoked, then answers 401 TOKEN_REVOKED at the next request', async () => {
    const token = server.token('editor');
    const other = server.token('editor');
    expect((await server.api('/api/docs', { token })).status).toBe(200);
    await revoke(token);
    const response = await server.api('/api/docs', { token });
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('TOKEN_REVOKED');
    expect((await server.api('/api/docs', { token: other })).status).toBe(200);
  });

  it('[TOKEN2] answers UNAUTHORIZED, not TOKEN_EXPIRED, to an expired token it did not sign', async () => {
    const [header, payload] = server.token('editor', { iat: now() - 120, exp: now() - 60 }).split('.');
    const response = await server.api('/api/docs', { token: `${header}.${payload}.AAAA` });
    expect(response.body.error.code).toBe('UNAUTHORIZED');
  });

  it('gives an owner link that expires in 7 days', () => {
    const claims = decodeClaims(server.ownerToken)!;
    expect(claims.exp! - claims.iat).toBe(7 * 24 * 3600);
  });

  it('[TOKEN5] verifies tokens of a key added while it runs, and still those of the older key', async () => {
    const before = server.token('editor');
    addKey(server.dataDir);
    const after = server.token('editor');
    expect(after.split('.')[0]).not.toBe(before.split('.')[0]);
    expect((await server.api('/api/docs', { token: after })).status).toBe(200);
    expect((await server.api('/api/docs', { token: before })).status).toBe(200);
  });
});

describe('token expiry and revocation over the WebSocket', () => {
  it('[TOKEN2] refuses an expired token with the reason "Token expired"', async () => {
    const id = await server.createDoc('Expired');
    const peer = connect(id, server.token('editor', { iat: now() - 120, exp: now() - 60 }));
    expect(await peer.authenticationFailed).toBe(denialReasons.expiredToken);
  });

  it('[TOKEN3] refuses a revoked token with the reason "Token revoked"', async () => {
    const id = await server.createDoc('Revoked');
    const token = server.token('viewer');
    await revoke(token);
    expect(await connect(id, token).authenticationFailed).toBe(denialReasons.revokedToken);
  });

  it('[TOKEN4] closes the open connection of a token revoked meanwhile, and keeps the others', async () => {
    const id = await server.createDoc('Open', 'first');
    const token = server.token('editor');
    const revoked = connect(id, token);
    const kept = connect(id, server.token('viewer'));
    await Promise.all([revoked.synced, kept.synced]);
    const codes = closeCodes(revoked);

    await revoke(token);
    expect(await revoked.authenticationFailed).toBe(denialReasons.revokedToken);
    expect(codes).toContain(tokenEndedCloseCode);

    const writer = connect(id, server.token('editor'));
    await writer.synced;
    appendParagraph(writer.ydoc, 'after the revocation');
    await waitFor(() => readBlocks(kept.ydoc).some((block) => block.markdown === 'after the revocation'));
  });

  it('[TOKEN4] closes the open connection of a token when it expires', async () => {
    const id = await server.createDoc('Expiring');
    // Seconds of room to connect and sync first, on a loaded machine too.
    const peer = connect(id, server.token('editor', { exp: now() + 4 }));
    await peer.synced;
    const codes = closeCodes(peer);
    expect(await peer.authenticationFailed).toBe(denialReasons.expiredToken);
    expect(codes).toContain(tokenEndedCloseCode);
  });
});
