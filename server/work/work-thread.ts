import { parentPort } from 'node:worker_threads';
import { refusalOf, workTasks, type WorkTasks } from './work-tasks.ts';

if (!parentPort) throw new Error('server/work/work-thread.ts runs as a worker thread of the work pool.');
const pool = parentPort;

/**
 * The message loop of one pool thread: `{id, task, input}` in, `{id, ok: true, value}` or
 * `{id, ok: false, refusal | message}` out. One task at a time: the pool sends the next only
 * after the answer, so a task that returns a promise (a Word file's zip) is awaited alone.
 */
pool.on('message', async (message: { id: number; task: keyof WorkTasks; input: unknown }) => {
  try {
    const value = await (workTasks[message.task] as (input: unknown) => unknown)(message.input);
    pool.postMessage({ id: message.id, ok: true, value });
  } catch (error) {
    const refusal = refusalOf(error);
    pool.postMessage(
      refusal ? { id: message.id, ok: false, refusal } : { id: message.id, ok: false, message: error instanceof Error ? error.stack ?? error.message : String(error) },
    );
  }
});
pool.postMessage({ ready: true });
