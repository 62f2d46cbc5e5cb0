import { syncLatency } from './sync-latency.ts';
import { applier } from './applier.ts';
import { persistence } from './persistence.ts';
import { memory } from './memory.ts';
import { traces } from './traces.ts';
import { browser } from './browser.ts';
import { agentApi } from './agent-api.ts';
import { scale } from './scale.ts';
import { heavyInput } from './heavy-input.ts';
import { runHistory } from './run-history.ts';
import { agentRun } from './agent-run.ts';
import type { Benchmark } from './lib/types.ts';

/** Every benchmark, in the order they run and print. */
export const benchmarks: Benchmark[] = [syncLatency, applier, persistence, memory, browser, traces, agentApi, scale, heavyInput, runHistory, agentRun];
