import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, statSync } from 'node:fs';

/**
 * The data directory holds the signing secret and every document: only its owner may read it.
 * Modes are set explicitly, so a loose umask still ends at 0700 (a directory Tandem creates, or
 * one that holds nothing but Tandem's files) and 0600 (its files, including those an older
 * version, or an older `tandem revoke`, left readable). Every path that may create the data
 * directory goes through these: the server's start, `tandem token`, `tandem revoke`,
 * `tandem rotate-key`.
 */

/** What Tandem itself keeps in `DATA_DIR`. */
export const dataDirEntries = /^(secret|keys|tandem\.sqlite(-wal|-shm|-journal)?)$/;

/**
 * Creates `dir` (and missing parents) with mode 0700. A directory that already exists is
 * tightened to 0700 when everything in it is Tandem's (`ownEntry` names what is), as a data
 * directory an older version made 0755 is; one that holds anything else keeps its mode:
 * `DATA_DIR` may name a directory shared with other things (even `/tmp`). A directory owned by
 * someone else, which may not be chmodded, keeps its mode too.
 */
export function ensurePrivateDir(dir: string, ownEntry: RegExp = dataDirEntries): void {
  const created = mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (created !== undefined) {
    chmodSync(dir, 0o700);
    return;
  }
  if ((statSync(dir).mode & 0o077) === 0 || !readdirSync(dir).every((name) => ownEntry.test(name))) return;
  try {
    chmodSync(dir, 0o700);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
  }
}

/** Creates `file` empty with mode 0600 when missing, or tightens an existing one to 0600. */
export function ensurePrivateFile(file: string): void {
  closeSync(openSync(file, 'a', 0o600));
  chmodSync(file, 0o600);
}

/** Tightens each of `files` that exists to 0600. */
export function restrictFiles(files: readonly string[]): void {
  for (const file of files) if (existsSync(file)) chmodSync(file, 0o600);
}
