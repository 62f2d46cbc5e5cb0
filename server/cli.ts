import { parseArgs } from 'node:util';
import { isRole, type Role } from '../shared/protocol/claims.ts';
import { isDocId } from '../shared/model/doc-layout.ts';
import { randomId } from '../shared/model/ids.ts';
import { grantableOps, isGrantableOp, type GrantableOp } from '../shared/protocol/grantable-ops.ts';
import { addKey, openKeyRing } from './auth/keys.ts';
import { hasSecret } from './auth/secret.ts';
import { signToken } from './auth/tokens.ts';
import { defaultTokenSeconds, parseLifetime } from './auth/expiry.ts';
import { revokeInDatabase, revokeInDataDir, tokenIdOf } from './auth/revoke.ts';
import { ensureClientBuilt } from './build-client.ts';
import { dataDirFromEnv, resolveServerOptions } from './config.ts';
import { openStore } from './store/open-store.ts';
import { repairDoc } from './store/repair-doc.ts';
import { describeLeftOut } from './store/update-log.ts';
import { startServer, type TandemServer } from './index.ts';
import { startReferenceAgent, type RunningAgent } from '../agents/reference/reference-agent.ts';
import { startModelAgent } from '../agents/model/model-agent.ts';
import { openAiProvider, openAiSettingsFromEnv } from '../agents/model/openai-provider.ts';
import { anthropicProvider, anthropicSettingsFromEnv } from '../agents/model/anthropic-provider.ts';
import { runLimitsFromEnv } from '../agents/model/model-settings.ts';
import { runMcpAgent } from '../agents/mcp/mcp-server.ts';

const usage = `Usage: tandem <command> [options]

Commands:
  start                          build the client if needed and start the server
  token --role ROLE [--name NAME] [--doc ID] [--ops LIST] [--expires TIME] [--init]
                                 print a token signed with the key of DATA_DIR (named on
                                 stderr); ROLE is editor, commenter, viewer or agent;
                                 --ops (agents) is a comma list of ${grantableOps.join(', ')};
                                 --expires is a count and a unit s, m, h or d (default 30d),
                                 or never; --init makes a signing key where DATA_DIR has none
                                 (without it, that is refused: the token would not verify)
  revoke TOKEN_OR_ID             revoke a token (the whole token, or its id); a running server
                                 refuses it from then on and closes its open connections
  repair DOC_ID                  rebuild a document that loads only in part (a value stored
                                 before the server checked shapes) from what can be read, and
                                 write it back so that it loads whole
  rotate-key                     add a new signing key to DATA_DIR/keys: new tokens are signed
                                 with it, older tokens still verify while their key file is kept
  agent --url URL --token TOKEN [--model openai:NAME | --model anthropic:NAME]
                                 run an agent against a server: the reference agent, or with
                                 --model the model agent, served by OPENAI_BASE_URL (openai)
                                 or ANTHROPIC_BASE_URL (anthropic)
  mcp --url URL --token TOKEN    serve an MCP client on stdin and stdout as an agent of the
                                 server (list_runs, claim_run, the model tools, complete_run)

Environment: PORT (8787), HOST (127.0.0.1), DATA_DIR (./data), LEASE_MS (30000),
TANDEM_AGENT (reference; openai or anthropic: the model agent; off: start no agent with the server),
OPENAI_BASE_URL (https://api.openai.com/v1), OPENAI_API_KEY,
ANTHROPIC_BASE_URL (https://api.anthropic.com), ANTHROPIC_API_KEY, TANDEM_MODEL (the model agent's model),
TANDEM_MODEL_TIMEOUT_MS (120000), TANDEM_MAX_TURNS (20), TANDEM_MAX_TOKENS_PER_RUN (200000),
TANDEM_MODEL_RETRIES (3), TANDEM_MODEL_RETRY_MAX_DELAY_MS (30000),
DATABASE_URL (postgres://…: PostgreSQL instead of DATA_DIR/tandem.sqlite; revoke writes there too),
REDIS_URL (redis://…: share live documents with the other instances on that Redis)
`;

/** A mistake in the command line: reported on stderr with exit code 2. */
class UsageError extends Error {}

/**
 * What a command reads and writes besides its arguments: the environment (DATA_DIR,
 * DATABASE_URL, …) and its two output streams. The process's own by default; a test passes its
 * own to run a command in-process.
 */
export interface CliIo {
  env: NodeJS.ProcessEnv;
  out(text: string): void;
  err(text: string): void;
}

const processIo: CliIo = {
  env: process.env,
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

/**
 * Runs one command of the `tandem` CLI. Resolves to the exit code, or to null for `start`,
 * whose process lives until SIGINT or SIGTERM.
 */
export async function main(argv: string[], io: CliIo = processIo): Promise<number | null> {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        role: { type: 'string' },
        name: { type: 'string' },
        doc: { type: 'string' },
        ops: { type: 'string' },
        url: { type: 'string' },
        token: { type: 'string' },
        expires: { type: 'string' },
        model: { type: 'string' },
        init: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    const [command, ...extra] = positionals;
    if (values.help || command === 'help') {
      io.out(usage);
      return 0;
    }
    if (command === undefined) throw new UsageError('Name a command.');
    if (command === 'revoke') return await revoke(extra, io);
    if (command === 'repair') return await repair(extra, io);
    if (extra.length > 0) throw new UsageError(`Unexpected argument: ${extra[0]}`);
    if (command === 'start') return await start();
    if (command === 'token') return await token(values, io);
    if (command === 'rotate-key') return rotateKey(io);
    if (command === 'agent') return agent(values);
    if (command === 'mcp') return mcp(values);
    throw new UsageError(`Unknown command: ${command}`);
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.err(`${(error as Error).message}\nRun \`tandem --help\` for usage.\n`);
      return 2;
    }
    throw error;
  }
}

async function token(values: { role?: string; name?: string; doc?: string; ops?: string; expires?: string; init?: boolean }, io: CliIo): Promise<number> {
  const role = values.role;
  if (!isRole(role)) throw new UsageError(`--role must be editor, commenter, viewer or agent${role ? `, not "${role}"` : ''}`);
  if (values.doc !== undefined && !isDocId(values.doc)) throw new UsageError(`--doc is not a document id: "${values.doc}"`);
  const ops = parseOps(role, values.ops);
  const name = values.name ?? role[0].toUpperCase() + role.slice(1);
  if (name.length === 0 || name.length > 200) throw new UsageError('--name must have 1 to 200 characters');
  let lifetime: number | null;
  try {
    lifetime = values.expires === undefined ? defaultTokenSeconds : parseLifetime(values.expires);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  // One clock reading for both, so the lifetime is exact even across a second boundary.
  const iat = Math.floor(Date.now() / 1000);
  const exp = lifetime === null ? undefined : iat + lifetime;
  const claims = { sub: `${role}-${randomId(8)}`, name, role, doc: values.doc, ops, iat, exp };
  const dataDir = dataDirFromEnv(io.env);
  // A key made here that the server does not have signs tokens it refuses: only on request.
  const fresh = !hasSecret(dataDir);
  if (fresh && !values.init) {
    io.err(
      `DATA_DIR ${dataDir} has no signing key, so a token signed here would not verify.\n` +
        `Set DATA_DIR to the server's data directory, or pass --init to make a new key there.\n`,
    );
    return 1;
  }
  const signed = await signToken(openKeyRing(dataDir), claims);
  io.err(fresh ? `Made a new signing key in DATA_DIR ${dataDir}\n` : `Signed with the key of DATA_DIR ${dataDir}\n`);
  io.out(signed + '\n');
  return 0;
}

async function revoke(args: string[], io: CliIo): Promise<number> {
  if (args.length !== 1) throw new UsageError('revoke needs one token or token id');
  const target = tokenIdOf(args[0]);
  if (!target) throw new UsageError('That is neither a Tandem token nor a token id.');
  const doc = target.claims?.doc ?? null;
  const databaseUrl = io.env.DATABASE_URL;
  const added = databaseUrl ? await revokeInDatabase(databaseUrl, target.jti, doc) : await revokeInDataDir(dataDirFromEnv(io.env), target.jti, doc);
  const who = target.claims ? ` (${target.claims.name}, ${target.claims.role})` : '';
  io.out(`${added ? 'Revoked' : 'Already revoked:'} token ${target.jti}${who}\n`);
  return 0;
}

/** SHAPE6: rewrites the stored parts of a document that load only in part; says what each left out. */
async function repair(args: string[], io: CliIo): Promise<number> {
  if (args.length !== 1 || !isDocId(args[0])) throw new UsageError('repair needs one document id');
  const [docId] = args;
  const store = await openStore({ dataDir: dataDirFromEnv(io.env), databaseUrl: io.env.DATABASE_URL || null });
  try {
    if (!(await store.getDoc(docId))) {
      io.err(`No document ${docId}\n`);
      return 1;
    }
    const repaired = await repairDoc(store, docId);
    for (const leftOut of repaired) io.out(`Repaired ${describeLeftOut(leftOut)}; it now loads whole\n`);
    if (repaired.length === 0) io.out(`Document ${docId} loads whole; nothing to repair\n`);
    return 0;
  } finally {
    await store.close();
  }
}

function rotateKey(io: CliIo): number {
  const kid = addKey(dataDirFromEnv(io.env));
  io.out(`New signing key ${kid}; new tokens are signed with it\n`);
  return 0;
}

function parseOps(role: Role, list: string | undefined): GrantableOp[] | undefined {
  if (role !== 'agent') {
    if (list !== undefined) throw new UsageError('--ops is only for agents');
    return undefined;
  }
  if (list === undefined) return [...grantableOps];
  const ops = [...new Set(list.split(',').map((op) => op.trim()).filter((op) => op !== ''))];
  const unknown = ops.find((op) => !isGrantableOp(op));
  if (unknown !== undefined) throw new UsageError(`Unknown op kind "${unknown}"; use ${grantableOps.join(', ')}`);
  return ops as GrantableOp[];
}

/**
 * Runs an agent against a server until SIGINT or SIGTERM (or until its token is refused): the
 * reference agent, or with `--model openai:NAME` or `--model anthropic:NAME` the model agent.
 */
function agent(values: { url?: string; token?: string; model?: string }): null {
  const { base, token } = serverAndToken('agent', values);
  const log = (message: string) => process.stderr.write(`${message}\n`);
  let running: RunningAgent;
  if (values.model === undefined) {
    running = startReferenceAgent({ url: base, token, log });
    process.stdout.write(`Reference agent working for ${base} (Ctrl-C stops it)\n`);
  } else {
    const [provider, name] = splitModel(values.model);
    const settings = provider === 'openai' ? openAiSettingsFromEnv(process.env, name) : anthropicSettingsFromEnv(process.env, name);
    const model = provider === 'openai' ? openAiProvider(settings) : anthropicProvider(settings);
    running = startModelAgent({ url: base, token, provider: model, log, limits: runLimitsFromEnv(process.env) });
    process.stdout.write(`Model agent (${provider}:${settings.model} at ${settings.baseURL}) working for ${base} (Ctrl-C stops it)\n`);
  }
  running.done.then(
    () => process.exit(0),
    (error) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
  const stop = () => void running.stop();
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return null;
}

/**
 * Serves an MCP client on stdin and stdout until stdin ends or SIGINT or SIGTERM; claimed runs
 * are given back first. Writes nothing else to stdout, which belongs to MCP.
 */
function mcp(values: { url?: string; token?: string; model?: string }): null {
  if (values.model !== undefined) throw new UsageError('mcp takes no --model: the MCP client brings its own');
  const { base, token } = serverAndToken('mcp', values);
  runMcpAgent({ url: base, token }).catch((error) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
  return null;
}

/** The `--url` of an agent command without its trailing slashes, and its `--token`. */
function serverAndToken(command: string, values: { url?: string; token?: string }): { base: string; token: string } {
  if (!values.url || !values.token) throw new UsageError(`${command} needs --url URL and --token TOKEN (an agent token: tandem token --role agent)`);
  let url: URL;
  try {
    url = new URL(values.url);
  } catch {
    throw new UsageError(`--url is not a URL: "${values.url}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError('--url must be an http:// or https:// URL');
  return { base: url.href.replace(/\/+$/, ''), token: values.token };
}

/** `openai:NAME` or `anthropic:NAME` as its provider and model name. */
function splitModel(value: string): ['openai' | 'anthropic', string] {
  const colon = value.indexOf(':');
  const provider = colon < 0 ? value : value.slice(0, colon);
  const name = colon < 0 ? '' : value.slice(colon + 1);
  if (provider !== 'openai' && provider !== 'anthropic') {
    throw new UsageError(`--model must be openai:NAME (an OpenAI-compatible server) or anthropic:NAME (the Anthropic Messages API), not "${value}"`);
  }
  if (name === '') throw new UsageError(`--model needs the model's name: ${provider}:NAME`);
  return [provider, name];
}

async function start(): Promise<number | null> {
  let options;
  try {
    options = resolveServerOptions();
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 2;
  }
  await ensureClientBuilt(options.distDir);
  let server: TandemServer;
  try {
    server = await startServer(options);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    process.stderr.write(`Port ${options.port} on ${options.host} is in use; set PORT to another port.\n`);
    return 1;
  }
  process.stdout.write(`Tandem ready at ${server.url}/?token=${server.ownerToken}\n`);

  let stopping = false;
  const stop = () => {
    if (stopping) process.exit(1);
    stopping = true;
    server.close().then(
      () => process.exit(0),
      (error) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return null;
}
