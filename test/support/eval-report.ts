/** The fields of an eval report, in order: the SPEC §7 object (`runEval`'s result and `eval --json`). */
export const EVAL_REPORT_KEYS = [
  'queries',
  'k',
  'mode',
  'hitAt1',
  'hitAt5',
  'hitAt10',
  'recallAt5',
  'recallAt10',
  'mrr',
  'ndcgAt10',
  'abstain',
  'shown',
  'latencyMs',
  'byLanguage',
] as const;
