import type { Suite } from './context.js';

export const reindexSuite: Suite = async () => ({ skipped: 'not written yet' });
