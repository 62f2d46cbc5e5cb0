import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadSecret, secretLength } from './secret.ts';
import { ensurePrivateDir } from '../private-files.ts';

/**
 * TOKEN5: the token signing keys of a data directory. The first key is `<dataDir>/secret` (so data
 * directories made before key rotation keep working); `tandem rotate-key` adds
 * `<dataDir>/keys/NNNN.key`, each 32 random bytes. Tokens are signed with the newest key and
 * verified with any kept key, found by the token's `kid` header: a key's id is derived from
 * its bytes, so it needs no bookkeeping. Deleting a key file retires every token signed with it.
 */

export interface SigningKey {
  kid: string;
  secret: Uint8Array;
}

export interface KeyRing {
  /** The key new tokens are signed with. */
  newest(): SigningKey;
  /** The kept key with this id, or undefined. */
  find(kid: string): SigningKey | undefined;
}

const keysDir = 'keys';
const keyFile = /^(\d{4,})\.key$/;

/** The key id of `secret`: 16 base64url characters of its SHA-256. */
export function keyId(secret: Uint8Array): string {
  return createHash('sha256').update(secret).digest('base64url').slice(0, 16);
}

/** Reads every key of `dataDir`, oldest first, creating `secret` on first use. */
export function readKeys(dataDir: string): SigningKey[] {
  const first = loadSecret(dataDir);
  const keys = [{ kid: keyId(first), secret: first }];
  for (const name of keyFileNames(dataDir)) {
    const file = join(dataDir, keysDir, name);
    const secret = readFileSync(file);
    if (secret.length !== secretLength) throw new Error(`${file} is not a Tandem key (expected ${secretLength} bytes)`);
    keys.push({ kid: keyId(secret), secret });
  }
  return keys;
}

/**
 * A key ring over `dataDir` that re-reads the key files at most once per `refreshMs`, and at
 * once when a key id is not found and the `keys` directory changed since the last read (a key
 * just added by `tandem rotate-key`), so a running server picks up new and removed keys without
 * a restart.
 */
export function openKeyRing(dataDir: string, refreshMs = 1000): KeyRing {
  let keys = readKeys(dataDir);
  let readAt = Date.now();
  let dirStamp = keysDirStamp(dataDir);
  const reread = () => {
    readAt = Date.now();
    dirStamp = keysDirStamp(dataDir);
    try {
      keys = readKeys(dataDir);
    } catch {
      // A key file being written or removed right now: keep the keys last read.
    }
  };
  const current = () => {
    if (Date.now() - readAt >= refreshMs) reread();
    return keys;
  };
  const find = (kid: string) => current().find((key) => key.kid === kid);
  return {
    newest: () => newestOf(current()),
    find(kid) {
      const found = find(kid);
      if (found || keysDirStamp(dataDir) === dirStamp) return found;
      reread();
      return find(kid);
    },
  };
}

/** The last of `keys`, which signs. */
function newestOf(keys: readonly SigningKey[]): SigningKey {
  const newest = keys.at(-1);
  if (!newest) throw new Error('A key ring holds at least one key.');
  return newest;
}

/** The number a key file's name carries (`0007.key`: 7); NaN for any other name. */
function keyNumber(name: string): number {
  return Number(keyFile.exec(name)?.[1]);
}

/** Changes whenever a file is added to or removed from `<dataDir>/keys`. */
function keysDirStamp(dataDir: string): string {
  try {
    const stat = statSync(join(dataDir, keysDir), { bigint: true });
    return `${stat.mtimeNs}:${stat.ctimeNs}`;
  } catch {
    return 'absent';
  }
}

/** A key ring of fixed keys (the last signs), for tests and one-shot commands. */
export function fixedKeyRing(keys: SigningKey[]): KeyRing {
  return { newest: () => newestOf(keys), find: (kid) => keys.find((key) => key.kid === kid) };
}

/** Adds a new newest key to `dataDir`; returns its id. */
export function addKey(dataDir: string): string {
  readKeys(dataDir);
  ensurePrivateDir(join(dataDir, keysDir), keyFile);
  const last = keyFileNames(dataDir).map(keyNumber).at(-1) ?? 0;
  const secret = randomBytes(secretLength);
  writeFileSync(join(dataDir, keysDir, `${String(last + 1).padStart(4, '0')}.key`), secret, { mode: 0o600, flag: 'wx' });
  return keyId(secret);
}

function keyFileNames(dataDir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(join(dataDir, keysDir));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names.filter((name) => keyFile.test(name)).sort((a, b) => keyNumber(a) - keyNumber(b));
}
