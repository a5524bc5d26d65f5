import { describe, expect, it } from 'vitest';
import { isAbortError } from '../../src/errors.js';
import { TaskLimiter } from '../../src/prefetch/task-limiter.js';

/** A task that runs until `finish` is called, recording when it started. */
function gate(started: string[], name: string) {
  let finish!: (value: string) => void;
  let fail!: (error: Error) => void;
  const done = new Promise<string>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  return {
    task: () => {
      started.push(name);
      return done;
    },
    finish: () => finish(name),
    fail: (error: Error) => fail(error),
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('TaskLimiter', () => {
  it('runs at most `concurrency` tasks at once, the others in arrival order as slots free', async () => {
    const limiter = new TaskLimiter(2);
    const started: string[] = [];
    const tasks = ['a', 'b', 'c', 'd'].map((name) => gate(started, name));
    const results = tasks.map((t) => limiter.run(t.task));
    await settle();
    expect(started).toEqual(['a', 'b']);
    expect([limiter.running, limiter.waiting]).toEqual([2, 2]);
    tasks[1]!.finish();
    await settle();
    expect(started).toEqual(['a', 'b', 'c']);
    // A task arriving while every slot is busy waits behind the line.
    const late = gate(started, 'e');
    const lateResult = limiter.run(late.task);
    tasks[0]!.finish();
    tasks[2]!.finish();
    await settle();
    expect(started).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(limiter.running).toBe(2);
    tasks[3]!.finish();
    late.finish();
    expect(await Promise.all([...results, lateResult])).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect([limiter.running, limiter.waiting]).toEqual([0, 0]);
  });

  it('takes a waiting task out of the line when its signal aborts, and never starts it', async () => {
    const limiter = new TaskLimiter(1);
    const started: string[] = [];
    const first = gate(started, 'first');
    const waiting = gate(started, 'waiting');
    const after = gate(started, 'after');
    const controller = new AbortController();
    const firstResult = limiter.run(first.task);
    const waitingResult = limiter.run(waiting.task, controller.signal);
    const afterResult = limiter.run(after.task);
    controller.abort();
    await expect(waitingResult).rejects.toSatisfy(isAbortError);
    expect(limiter.waiting).toBe(1);
    first.finish();
    await settle();
    expect(started).toEqual(['first', 'after']);
    after.finish();
    expect(await Promise.all([firstResult, afterResult])).toEqual(['first', 'after']);
  });

  it('rejects at once for a signal already aborted, without taking a slot', async () => {
    const limiter = new TaskLimiter(1);
    const started: string[] = [];
    await expect(limiter.run(gate(started, 'x').task, AbortSignal.abort())).rejects.toSatisfy(isAbortError);
    expect([started, limiter.running]).toEqual([[], 0]);
  });

  it('frees the slot of a task that fails', async () => {
    const limiter = new TaskLimiter(1);
    const started: string[] = [];
    const failing = gate(started, 'failing');
    const next = gate(started, 'next');
    const failed = limiter.run(failing.task);
    const nextResult = limiter.run(next.task);
    failing.fail(new Error('boom'));
    await expect(failed).rejects.toThrow('boom');
    await settle();
    expect(started).toEqual(['failing', 'next']);
    next.finish();
    expect(await nextResult).toBe('next');
    expect(limiter.running).toBe(0);
  });
});
