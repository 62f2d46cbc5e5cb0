/**
 * Tandem's server alone in a process, for tests that kill it (server-process.ts). argv[2] is the
 * data dir, argv[3] the port; once listening it prints one JSON line `{url, port, ownerToken}`.
 * No agent, and no built client: the tests use the API and the WebSocket only.
 */
import { join } from 'node:path';
import { startServer } from '../../server/index.ts';

const [dataDir, port] = process.argv.slice(2);
const server = await startServer({ port: Number(port), host: '127.0.0.1', dataDir, distDir: join(dataDir, 'no-client'), quiet: true, agent: 'off' });
process.stdout.write(JSON.stringify({ url: server.url, port: server.port, ownerToken: server.ownerToken }) + '\n');
const stop = () => void server.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
