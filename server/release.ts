import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './config.ts';
import { protocolVersion } from '../shared/protocol/protocol-version.ts';

/** VER1: what `GET /healthz` says of this build: the package's version and the protocol it speaks. */
export interface Release {
  version: string;
  protocol: number;
}

let release: Release | undefined;

/** This build's release, read once from the package.json it ships with. */
export function currentRelease(): Release {
  release ??= {
    version: (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version,
    protocol: protocolVersion,
  };
  return release;
}
