import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { decodeClaims } from '../../shared/protocol/claims.ts';
import { waitFor } from '../helpers/peer.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

const run = promisify(execFile);
const server = useTestServer();

/** Runs `npx tandem ARGS` as a child process against the test server's data directory. */
async function tandem(...args: string[]): Promise<string> {
  const { stdout } = await run('npx', ['--offline', 'tandem', ...args], {
    cwd: new URL('../..', import.meta.url).pathname,
    env: { ...process.env, DATA_DIR: server.dataDir },
  });
  return stdout.trim();
}

const status = async (token: string) => (await server.api('/api/docs', { token })).body?.error?.code ?? 'OK';

// Each command is a Node process that loads the TypeScript sources: seconds on a loaded machine.
describe('tandem token and tandem revoke against a running server', { timeout: 120_000 }, () => {
  it('makes a token that expires after --expires, and one that lasts 30 days by default', async () => {
    const [short, standard] = await Promise.all([tandem('token', '--role', 'viewer', '--expires', '1s'), tandem('token', '--role', 'viewer')]);
    const claims = decodeClaims(short)!;
    expect(claims.exp! - claims.iat).toBe(1);
    expect(decodeClaims(standard)!.exp! - decodeClaims(standard)!.iat).toBe(30 * 24 * 3600);
    await waitFor(async () => (await status(short)) === 'TOKEN_EXPIRED', 10_000, 100);
    expect(await status(standard)).toBe('OK');
  });

  it('[PAGE5] makes agent tokens that allow page ops: all op kinds by default, exactly those of --ops', async () => {
    const [standard, pageOnly] = await Promise.all([tandem('token', '--role', 'agent'), tandem('token', '--role', 'agent', '--ops', 'set_text,replace_block')]);
    expect(decodeClaims(standard)!.ops).toEqual(['replace_block', 'insert_after', 'delete_block', 'set_text', 'set_attribute', 'replace_element']);
    expect(decodeClaims(pageOnly)!.ops).toEqual(['set_text', 'replace_block']);
    await expect(tandem('token', '--role', 'agent', '--ops', 'set_html')).rejects.toThrow(/Unknown op kind "set_html"/);
  });

  it('[TOKEN3] revokes a token given whole or by its id, for the running server at its next request', async () => {
    const [whole, byId] = await Promise.all([tandem('token', '--role', 'editor', '--expires', '1h'), tandem('token', '--role', 'editor', '--name', 'Bo')]);
    expect([await status(whole), await status(byId)]).toEqual(['OK', 'OK']);
    const jti = decodeClaims(byId)!.jti!;

    expect(await tandem('revoke', whole)).toMatch(/^Revoked token [0-9a-z]{20} \(Editor, editor\)$/);
    expect(await tandem('revoke', jti)).toBe(`Revoked token ${jti}`);
    expect([await status(whole), await status(byId)]).toEqual(['TOKEN_REVOKED', 'TOKEN_REVOKED']);
    expect(await tandem('revoke', jti)).toBe(`Already revoked: token ${jti}`);
  });

  it('[TOKEN5] adds a signing key that a running server accepts at once, keeping the tokens of the older key', async () => {
    const before = await tandem('token', '--role', 'viewer');
    expect(await tandem('rotate-key')).toMatch(/^New signing key [\w-]{16}; new tokens are signed with it$/);
    const after = await tandem('token', '--role', 'viewer');
    expect(after.split('.')[0]).not.toBe(before.split('.')[0]);
    expect([await status(before), await status(after)]).toEqual(['OK', 'OK']);
  });
});
