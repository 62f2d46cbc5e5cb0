// A thread of the WorkPool (work-pool.ts): loads the TypeScript sources through tsx, then
// answers the pool's messages with work-thread.ts.
import { register } from 'tsx/esm/api';

register();
await import(new URL('./work-thread.ts', import.meta.url).href);
