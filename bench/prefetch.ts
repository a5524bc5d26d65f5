import type { Suite } from './context.js';

export const prefetchSuite: Suite = async () => ({ skipped: 'not written yet' });
