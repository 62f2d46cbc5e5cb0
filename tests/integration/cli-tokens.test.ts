import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { decodeClaims } from '../../shared/protocol/claims.ts';
import { main } from '../../server/cli.ts';
import { waitFor } from '../helpers/peer.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

const run = promisify(execFile);
const server = useTestServer();

/**
 * Runs `tandem ARGS` against `dataDir` (the test server's data directory by default), in this
 * process: the CLI's own `main` with an environment and output of the test's. One test below runs
 * the real `npx tandem` as a child process.
 */
async function tandemIn(dataDir: string, ...args: string[]): Promise<string> {
  return tandemOn({ dataDir, databaseUrl: null }, ...args);
}

/** `tandem ARGS` in this process on the store of `at` (PostgreSQL when `databaseUrl` is not null): its output; throws unless it exits 0. */
async function tandemOn(at: { dataDir: string; databaseUrl: string | null }, ...args: string[]): Promise<string> {
  const { code, out, err } = await tandemOutcomeOn(at, ...args);
  if (code !== 0) throw new Error(`tandem ${args.join(' ')} exited with ${code}: ${err}`);
  return out.trim();
}

/** `tandem ARGS` in this process: its exit code and both output streams, whatever the code. */
async function tandemOutcome(dataDir: string, ...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return tandemOutcomeOn({ dataDir, databaseUrl: null }, ...args);
}

async function tandemOutcomeOn(at: { dataDir: string; databaseUrl: string | null }, ...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(args, { env: { ...process.env, DATA_DIR: at.dataDir, DATABASE_URL: at.databaseUrl ?? '' }, out: (text) => (out += text), err: (text) => (err += text) });
  return { code, out, err };
}

/** `npx tandem ARGS` as a child process, as a person runs it. */
async function tandemProcess(dataDir: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('npx', ['--offline', 'tandem', ...args], {
    cwd: new URL('../..', import.meta.url).pathname,
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' },
  });
  return stdout.trim();
}

/** `tandem ARGS` on the running server's data, PostgreSQL included (TANDEM_TEST_STORE=postgres). */
const tandem = (...args: string[]) => tandemOn(server, ...args);

const status = async (token: string) => (await server.api('/api/docs', { token })).body?.error?.code ?? 'OK';

describe('tandem token and tandem revoke against a running server', { timeout: 120_000 }, () => {
  it('makes a token that expires after --expires, and one that lasts 30 days by default', async () => {
    // The real command once, as a child process: it loads the TypeScript sources (seconds on a loaded machine).
    const [short, standard] = await Promise.all([tandem('token', '--role', 'viewer', '--expires', '1s'), tandemProcess(server.dataDir, 'token', '--role', 'viewer')]);
    const claims = decodeClaims(short)!;
    expect(claims.exp! - claims.iat).toBe(1);
    expect(decodeClaims(standard)!.exp! - decodeClaims(standard)!.iat).toBe(30 * 24 * 3600);
    await waitFor(async () => (await status(short)) === 'TOKEN_EXPIRED', 10_000, 100);
    expect(await status(standard)).toBe('OK');
  });

  it('[PAGE5] makes agent tokens that allow page ops: all op kinds by default, exactly those of --ops', async () => {
    const [standard, pageOnly] = await Promise.all([tandem('token', '--role', 'agent'), tandem('token', '--role', 'agent', '--ops', 'set_text,replace_block')]);
    expect(decodeClaims(standard)!.ops).toEqual(['replace_block', 'insert_after', 'delete_block', 'propose_variants', 'set_text', 'set_attribute', 'replace_element']);
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

describe('the commands on a data directory that does not exist yet', { timeout: 120_000 }, () => {
  const mode = (path: string) => statSync(path).mode & 0o777;

  it('[TOKEN3] [TOKEN5] make it 0700 and its files 0600: tandem revoke, tandem token and tandem rotate-key alike', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'tandem-cli-'));
    try {
      const dirs = ['revoke', 'token', 'rotate'].map((name) => join(parent, name, 'data'));
      await Promise.all([
        tandemIn(dirs[0], 'revoke', 'abcdefghij0123456789'),
        tandemIn(dirs[1], 'token', '--role', 'viewer', '--init'),
        tandemIn(dirs[2], 'rotate-key'),
      ]);
      for (const dir of dirs) {
        expect([dir, mode(dir)]).toEqual([dir, 0o700]);
        for (const entry of readdirSync(dir, { recursive: true }) as string[]) {
          const path = join(dir, entry);
          expect([path, mode(path)]).toEqual([path, statSync(path).isDirectory() ? 0o700 : 0o600]);
        }
      }
      expect(readdirSync(dirs[0])).toEqual(expect.arrayContaining(['tandem.sqlite']));
      expect(readdirSync(dirs[2]).sort()).toEqual(['keys', 'secret']);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});

describe('tandem token and the signing key of DATA_DIR', { timeout: 120_000 }, () => {
  it('refuses to make a new signing key without --init, saying which DATA_DIR it looked in, and writes nothing', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'tandem-cli-'));
    try {
      const dir = join(parent, 'elsewhere');
      const refused = await tandemOutcome(dir, 'token', '--role', 'editor');
      expect(refused.code).toBe(1);
      expect(refused.out).toBe('');
      expect(refused.err).toContain(`DATA_DIR ${dir} has no signing key`);
      expect(refused.err).toContain('--init');
      expect(existsSync(join(dir, 'secret'))).toBe(false);

      const made = await tandemOutcome(dir, 'token', '--role', 'editor', '--init');
      expect(made.code).toBe(0);
      expect(made.err).toBe(`Made a new signing key in DATA_DIR ${dir}\n`);
      expect(decodeClaims(made.out.trim())!.role).toBe('editor');
      expect(existsSync(join(dir, 'secret'))).toBe(true);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });

  it('signs with the existing key of the server\'s DATA_DIR, names that directory, and the server accepts the token', async () => {
    const signed = await tandemOutcome(server.dataDir, 'token', '--role', 'viewer');
    expect(signed.code).toBe(0);
    expect(signed.err).toBe(`Signed with the key of DATA_DIR ${server.dataDir}\n`);
    expect(await status(signed.out.trim())).toBe('OK');
  });
});
