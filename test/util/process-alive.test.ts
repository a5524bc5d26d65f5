import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { processAlive } from '../../src/util/process-alive.js';

describe('processAlive', () => {
  it('is true for this process and false for a pid no process has', () => {
    expect(processAlive(process.pid)).toBe(true);
    expect(processAlive(2 ** 22 + 12_345)).toBe(false);
  });

  it.runIf(existsSync('/proc/self/stat'))('is false for a process that exited and was not reaped (a zombie)', async () => {
    // The shell starts a child that exits at once, then becomes `sleep`, which never reaps it.
    const parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 5'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const pid = await new Promise<number>((resolve) => parent.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))));
      const state = () => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]![0];
      for (let waited = 0; state() !== 'Z' && waited < 5_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(state()).toBe('Z');
      expect(processAlive(pid)).toBe(false);
      expect(processAlive(parent.pid!)).toBe(true);
    } finally {
      parent.kill('SIGKILL');
    }
  });
});
