// Defaults of the command line that more than one command uses (the flags' help shows them).
import { ENGINE_DEFAULTS } from '../search/options.js';

/** Results per query for `query`, `index`, `watch` and `mcp`: the engine's own default. */
export const DEFAULT_K = ENGINE_DEFAULTS.k;
/** The cut-off `eval` scores at. */
export const DEFAULT_EVAL_K = 10;
/** The encoder when `--model` is not given. */
export const DEFAULT_MODEL = 'use-lite';
/** The prompt hook's flag defaults (its internal timings: `HOOK_TIMING` in `commands/hook.ts`). */
export const HOOK_DEFAULTS = Object.freeze({
  /** Skills announced per prompt: few, like the prefetch discovery of an agent loop. */
  k: 3,
  /** `--timeout-ms`: the whole budget of one prompt (open, sync, search), ms. */
  timeoutMs: 3000,
});
