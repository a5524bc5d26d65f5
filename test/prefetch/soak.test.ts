import { describe, expect, it } from 'vitest';
import { runPrefetchSoak } from '../../scripts/soak-prefetch.js';

describe('prefetch soak (short)', () => {
  it('500 started-and-aborted turns leave no rejection, listener, timer or pending search', async () => {
    const report = await runPrefetchSoak({ turns: 500, seed: 7, maxLatencyMs: 3, checkHeap: false });
    expect(report.failures).toEqual([]);
    expect(report.unhandledRejections).toBe(0);
    expect(report.leakedListeners).toBe(0);
    expect(report.nonNullCollects).toBe(0);
    expect(report.timersAfter).toBeLessThanOrEqual(report.timersBefore);
    // The run must actually exercise cancellation mid-search, not only queued aborts.
    expect(report.searchesCancelled).toBeGreaterThan(0);
  });
});
