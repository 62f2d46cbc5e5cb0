/**
 * The longest stall of this process's event loop while `work` runs: a timer due every
 * `everyMs` that notes how late each tick comes. The test server runs in the test's process
 * (helpers/server.ts), so this is how long the server could answer no one: the other users'
 * requests, messages and `/healthz`.
 */
export async function longestStall(work: () => Promise<void>, everyMs = 5): Promise<number> {
  let last = performance.now();
  let longest = 0;
  const probe = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last - everyMs);
    last = now;
  }, everyMs);
  try {
    await work();
  } finally {
    clearInterval(probe);
  }
  return Math.max(longest, performance.now() - last - everyMs);
}

/**
 * LIMIT10's budget in the tests: no stall longer than this while one principal sends the attack
 * corpus. The server's own goal is ~50 ms; the tests allow far more because they run on two
 * shared, loaded cores: there (load 9–11) a worker thread that merely spins stalls this
 * process's loop by up to ~240 ms through CPU contention alone, an idle loop by ~110 ms. The
 * stalls the tests are there to catch, the old code's, are 1.5 s to tens of seconds per case.
 */
export const stallBudgetMs = 750;

/**
 * LIMIT10's budget for importing and reading text (tests/integration/heavy-input.test.ts), whose
 * work is all in the pool and whose event loop only hands states and answers over: measured at
 * 68–138 ms there on the same loaded cores (load 15–20), against 1.0–2.6 s before (the stored
 * state was read for shape on the loop). What remains is contention for the cores and this
 * process parsing the test's own answers.
 */
export const textStallBudgetMs = 250;
