// Defaults of the command line that more than one command uses (the flags' help shows them).

/** Results per query for `query`, `index`, `watch` and `mcp`. */
export const DEFAULT_K = 5;
/** The cut-off `eval` scores at. */
export const DEFAULT_EVAL_K = 10;
/** The encoder when `--model` is not given. */
export const DEFAULT_MODEL = 'use-lite';
/** How long the hook waits for a search before answering with nothing (ms). */
export const DEFAULT_HOOK_TIMEOUT_MS = 3000;
/** Skills a hook announces per prompt: few, like the prefetch discovery of an agent loop. */
export const DEFAULT_HOOK_K = 3;
