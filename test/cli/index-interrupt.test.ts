import { afterAll, describe, expect, it } from 'vitest';
import { manySkills, removeDir, runCli, tempDir } from './helpers.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeDir));

describe('index interrupted (Ctrl-C)', () => {
  it('keeps the vectors it embedded before the interrupt, so the next index embeds only the rest', async () => {
    const total = 200;
    const skills = manySkills(total);
    dirs.push(skills);
    const cache = tempDir();
    dirs.push(cache);
    const argv = ['index', '--skills-dir', skills, '--model', 'hash'];
    // The CLI's SIGINT aborts io.signal (src/cli/run.ts); here it aborts at the first report of skills embedded. Progress
    // lines come at most once a second: the first ("0/200") holds the build up that long, so the report after the first
    // batch of 64 is printed.
    const interrupt = new AbortController();
    let doneAtInterrupt = 0;
    const first = await runCli(argv, cache, {
      signal: interrupt.signal,
      onStderr: (chunk) => {
        const done = Number(/indexing (\d+)\//.exec(chunk)?.[1] ?? -1);
        if (done === 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1100);
        if (done > 0 && !interrupt.signal.aborted) {
          doneAtInterrupt = done;
          interrupt.abort();
        }
      },
    });
    expect(first.code).toBe(130);
    expect(doneAtInterrupt).toBe(64);
    const again = await runCli([...argv, '--json', '--quiet'], cache);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ skills: total, added: total, embedded: total - doneAtInterrupt });
  });
});
