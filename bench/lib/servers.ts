import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { ServerAddress, ServerKind, ServerRequest, ServerSpec, StoredMessage } from './server-spec.ts';

export type { ServerKind } from './server-spec.ts';

export interface ServerHandle extends ServerAddress {
  kind: ServerKind;
  pid: number;
  /** `process.memoryUsage()` of the server process after two full garbage collections. */
  memory(): Promise<NodeJS.MemoryUsage>;
  /** CPU time (user + system) the server process has used so far, in milliseconds. */
  cpuMs(): Promise<number>;
  /** The longest event-loop stall of the server since the previous call, in milliseconds. */
  stallMs(): Promise<number>;
  /** Calls `listener` with the state vector of each write of a `bare-sqlite` server; returns an unsubscriber. */
  onStored(listener: (name: string, stateVector: Uint8Array) => void): () => void;
  /** Closes the server (it stores its open documents) and waits for its process to end. */
  stop(): Promise<void>;
}

const entry = fileURLToPath(new URL('./server-process.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const running = new Set<ChildProcess>();

process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * With TANDEM_BENCH_CPU_PROF=DIR (`npm run bench -- --cpu-prof`), each server writes a V8 CPU
 * profile per thread into DIR/KIND when it stops (open the main thread's, the largest, in Chrome's DevTools).
 */
function profileArgs(spec: ServerSpec): string[] {
  const dir = process.env.TANDEM_BENCH_CPU_PROF;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${join(dir, spec.kind)}`] : [];
}

/** Starts a server of `kind` in a child process on a free port of 127.0.0.1. */
export async function launchServer(spec: ServerSpec, startTimeoutMs = 30_000): Promise<ServerHandle> {
  const child = fork(entry, [JSON.stringify(spec)], {
    cwd: repoRoot,
    execArgv: ['--expose-gc', '--import', 'tsx', ...profileArgs(spec)],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  running.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => running.delete(child));

  const storedListeners = new Set<(name: string, stateVector: Uint8Array) => void>();
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let nextId = 1;
  const address = await new Promise<ServerAddress>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${spec.kind} server did not start within ${startTimeoutMs} ms`)), startTimeoutMs);
    child.once('exit', (code) => reject(new Error(`${spec.kind} server exited (${code}) before it was ready`)));
    child.on('message', (message: any) => {
      if (message.type === 'ready') {
        clearTimeout(timer);
        resolve(message.address);
        return;
      }
      if (message.type === 'stored') {
        const { name, stateVector } = message as StoredMessage;
        for (const listener of storedListeners) listener(name, new Uint8Array(Buffer.from(stateVector, 'base64')));
        return;
      }
      const waiter = pending.get(message.id);
      if (!waiter) return;
      pending.delete(message.id);
      if (message.error) waiter.reject(new Error(message.error));
      else waiter.resolve(message.result);
    });
  }).catch((error) => {
    child.kill('SIGKILL');
    throw error;
  });
  child.once('exit', () => {
    for (const waiter of pending.values()) waiter.reject(new Error(`${spec.kind} server exited`));
    pending.clear();
  });

  const request = <T>(type: ServerRequest['type']): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (!child.connected) return reject(new Error(`${spec.kind} server is gone`));
      const id = nextId++;
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      child.send({ id, type });
    });

  let stopping: Promise<void> | undefined;
  return {
    ...address,
    kind: spec.kind,
    pid: child.pid!,
    memory: () => request<NodeJS.MemoryUsage>('memory'),
    cpuMs: () => request<number>('cpu'),
    stallMs: () => request<number>('stall'),
    onStored(listener) {
      storedListeners.add(listener);
      return () => storedListeners.delete(listener);
    },
    stop() {
      stopping ??= (async () => {
        const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        try {
          if (child.connected) await request('stop').catch(() => {});
          await exited;
        } finally {
          clearTimeout(killer);
        }
      })();
      return stopping;
    },
  };
}

/** Runs `fn` with a server of `spec`, stopping it afterwards whatever happens. */
export async function withServer<T>(spec: ServerSpec, fn: (server: ServerHandle) => Promise<T>): Promise<T> {
  const server = await launchServer(spec);
  try {
    return await fn(server);
  } finally {
    await server.stop();
  }
}

/** Creates a text document through Tandem's HTTP API; returns its id. */
export async function createTandemDoc(server: ServerHandle, title: string, markdown: string): Promise<string> {
  const response = await fetch(`${server.httpUrl}/api/docs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json', connection: 'close' },
    body: JSON.stringify({ title, markdown }),
  });
  if (response.status !== 201) throw new Error(`POST /api/docs: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { id: string }).id;
}
