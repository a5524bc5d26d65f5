import type { Suite } from './context.js';

export const querySuite: Suite = async () => ({ skipped: 'not written yet' });
