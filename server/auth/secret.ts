import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ensurePrivateDir } from '../private-files.ts';

export const secretLength = 32;

/**
 * The signing secret of a data directory: 32 random bytes in `<dataDir>/secret` (mode 0600),
 * created with the directory (mode 0700) on first use. Throws when the file exists but is not a secret.
 */
export function loadSecret(dataDir: string): Buffer {
  ensurePrivateDir(dataDir);
  const file = join(dataDir, 'secret');
  try {
    writeFileSync(file, randomBytes(secretLength), { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    chmodSync(file, 0o600);
  }
  const secret = readFileSync(file);
  if (secret.length !== secretLength) {
    throw new Error(`${file} is not a Tandem secret (expected ${secretLength} bytes); move it away to make a new one`);
  }
  return secret;
}

/** Whether `dataDir` already holds a signing secret (so signing with it makes no new key). */
export function hasSecret(dataDir: string): boolean {
  return existsSync(join(dataDir, 'secret'));
}
