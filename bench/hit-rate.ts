import type { Suite } from './context.js';

export const hitRateSuite: Suite = async () => ({ skipped: 'not written yet' });
