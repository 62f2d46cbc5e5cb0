#!/usr/bin/env node
// The `tandem` command: loads the TypeScript sources through tsx, then runs server/cli.ts.
import { register } from 'tsx/esm/api';

register();
const { main } = await import(new URL('../server/cli.ts', import.meta.url).href);
const code = await main(process.argv.slice(2));
if (code !== null) process.exitCode = code;
