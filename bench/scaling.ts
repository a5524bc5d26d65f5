import type { Suite } from './context.js';

export const scalingSuite: Suite = async () => ({ skipped: 'not written yet' });
