import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';

/**
 * The data directory holds the signing secret and every document: only its owner may read it.
 * Modes are set explicitly, so a loose umask still ends at 0700 (a directory Tandem creates)
 * and 0600 (its files, including those an older version left readable).
 */

/**
 * Creates `dir` (and missing parents) with mode 0700. A directory that already exists keeps its
 * mode: `DATA_DIR` may name a directory shared with other things (even `/tmp`).
 */
export function ensurePrivateDir(dir: string): void {
  const created = mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (created !== undefined) chmodSync(dir, 0o700);
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
