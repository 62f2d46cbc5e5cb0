import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { Rejection } from '../../shared/protocol/rejection.ts';
import { defaultLimits } from '../limits.ts';
import type { WorkTasks } from './work-tasks.ts';

/**
 * A small pool of worker threads for the work whose cost grows with what one client wrote
 * (LIMIT10): sanitizing and reading pages, parsing and writing Markdown, building imports. The
 * event loop only hands the input over and takes the answer, so no request or message stalls
 * everyone else while it is done. A task that runs past its `timeoutMs` (the pool's when it
 * was asked for, counted from when its thread started it) has its thread terminated and is
 * refused with 422 `TOO_COMPLEX`; a new thread takes the old one's place. Tasks wait in order
 * for a free thread.
 */
export class WorkPool {
  private readonly idle: PoolThread[] = [];
  private readonly all = new Set<PoolThread>();
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  private kept = 0;

  constructor(private readonly options: { size: number; timeoutMs: number }) {}

  /** The time limit of the tasks started from now on (`limits.workTaskMs`, server/limits.ts). */
  limitTasksTo(timeoutMs: number): void {
    this.options.timeoutMs = timeoutMs;
  }

  run<K extends keyof WorkTasks>(task: K, input: Parameters<WorkTasks[K]>[0], transfer: ArrayBuffer[] = []): Promise<Awaited<ReturnType<WorkTasks[K]>>> {
    if (this.closed) return Promise.reject(new Error('The work pool is closed.'));
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, task, input, transfer, timeoutMs: this.options.timeoutMs, resolve: resolve as (value: unknown) => void, reject });
      this.dispatch();
    });
  }

  /**
   * Starts `count` threads now (at most the pool's size) and keeps that many started, a stopped
   * one replaced at once: a thread takes seconds to load its modules, which the first task, or
   * the first after a `TOO_COMPLEX`, would otherwise wait for.
   */
  keepStarted(count = 1): void {
    this.kept = Math.min(this.options.size, Math.max(this.kept, count));
    this.fill();
  }

  private fill(): void {
    // A started thread joins `idle` when it says it is ready.
    while (!this.closed && this.all.size < this.kept) this.spawn();
  }

  /** Ends every thread; queued and running tasks are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error('The work pool closed.'));
    await Promise.all([...this.all].map((thread) => thread.end(new Error('The work pool closed.'))));
  }

  private dispatch(): void {
    for (let job = this.queue.at(0); job !== undefined; job = this.queue.at(0)) {
      const thread = this.idle.pop() ?? (this.all.size < this.options.size ? this.spawn() : null);
      if (!thread) return;
      this.queue.shift();
      thread.start(job);
    }
  }

  private spawn(): PoolThread {
    const thread = new PoolThread({
      idle: () => {
        if (this.closed) return;
        this.idle.push(thread);
        this.dispatch();
      },
      gone: () => {
        this.all.delete(thread);
        const at = this.idle.indexOf(thread);
        if (at >= 0) this.idle.splice(at, 1);
        if (this.closed) return;
        this.fill();
        this.dispatch();
      },
    });
    this.all.add(thread);
    return thread;
  }
}

interface Job {
  id: number;
  task: string;
  input: unknown;
  transfer: ArrayBuffer[];
  timeoutMs: number;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

type Answer = { id: number; ok: true; value: unknown } | { id: number; ok: false; refusal?: { code: string; message: string }; message?: string };

/** One worker thread: starts a job once the thread is ready, one at a time, under the job's time limit. */
class PoolThread {
  private readonly worker: Worker;
  private ready = false;
  private job: Job | null = null;
  private timer: NodeJS.Timeout | null = null;
  private ended = false;

  constructor(private readonly events: { idle(): void; gone(): void }) {
    this.worker = new Worker(new URL('./worker-entry.mjs', import.meta.url));
    // A thread never keeps the process alive; the pool's owner closes it.
    this.worker.unref();
    this.worker.on('message', (message: Answer | { ready: true }) => this.onMessage(message));
    this.worker.on('error', (error) => void this.end(error));
    this.worker.on('exit', () => void this.end(new Error('A work thread exited.')));
  }

  start(job: Job): void {
    this.job = job;
    if (this.ready) this.send(job);
  }

  end(error: Error): Promise<void> {
    if (this.ended) return Promise.resolve();
    this.ended = true;
    if (this.timer) clearTimeout(this.timer);
    this.job?.reject(error);
    this.job = null;
    this.events.gone();
    return this.worker.terminate().then(() => undefined);
  }

  private send(job: Job): void {
    this.timer = setTimeout(() => {
      void this.end(new Rejection(422, 'TOO_COMPLEX', `This took the server more than ${job.timeoutMs / 1000} s to read; it was stopped. Make it smaller.`));
    }, job.timeoutMs);
    this.worker.postMessage({ id: job.id, task: job.task, input: job.input }, job.transfer);
  }

  private onMessage(message: Answer | { ready: true }): void {
    if ('ready' in message) {
      this.ready = true;
      if (this.job) this.send(this.job);
      else this.events.idle();
      return;
    }
    const job = this.job;
    if (!job || job.id !== message.id) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.job = null;
    if (message.ok) job.resolve(message.value);
    else if (message.refusal) job.reject(new Rejection(422, message.refusal.code, message.refusal.message));
    else job.reject(new Error(`A work task failed: ${message.message}`));
    this.events.idle();
  }
}

let shared: WorkPool | null = null;

/**
 * The process's pool, made on first use: one thread per core but one (at least one, at most
 * 4), so the event loop keeps a core; tasks stop after 20 s unless a server set another limit
 * (`limitTasksTo`).
 */
export function workPool(): WorkPool {
  shared ??= new WorkPool({ size: Math.max(1, Math.min(4, availableParallelism() - 1)), timeoutMs: defaultLimits.workTaskMs });
  return shared;
}
