import { describe, expect, it } from 'vitest';
import { loopTurns } from '../../src/util/loop-turns.js';

describe('loopTurns', () => {
  it('lets callbacks queued on the event loop run once its interval has passed', async () => {
    const turn = loopTurns(-1);
    let ran = false;
    setImmediate(() => (ran = true));
    await turn();
    expect(ran).toBe(true);
  });

  it('returns without a turn within its interval', async () => {
    const turn = loopTurns(Number.POSITIVE_INFINITY);
    let ran = false;
    const immediate = setImmediate(() => (ran = true));
    await turn();
    expect(ran).toBe(false);
    clearImmediate(immediate);
  });
});
