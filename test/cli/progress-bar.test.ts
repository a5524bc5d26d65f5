import { describe, expect, it } from 'vitest';
import { BuildProgress, ProgressBar } from '../../src/cli/progress-bar.js';

function stream(isTTY: boolean): { isTTY: boolean; text: string; write(chunk: string): boolean } {
  return {
    isTTY,
    text: '',
    write(chunk: string) {
      this.text += chunk;
      return true;
    },
  };
}

describe('progress bar', () => {
  it('redraws one line in place on a terminal and ends it with a newline', () => {
    const tty = stream(true);
    const bar = new ProgressBar(tty);
    bar.update('gte-small onnx/model_quantized.onnx', 17_000_000, 34_000_000, true);
    bar.done();
    expect(tty.text).toMatch(/^\r\u001b\[2Kgte-small onnx\/model_quantized\.onnx {2}\[#{12}-{12}\] {2}50% {2}17\.0 MB \/ 34\.0 MB {2}[\d.]+ MB\/s\n$/);
  });

  it('prints nothing when stderr is not a terminal', () => {
    const pipe = stream(false);
    const bar = new ProgressBar(pipe);
    bar.update('x', 1, 2, true);
    bar.done();
    expect(pipe.text).toBe('');
  });
});

describe('index build progress', () => {
  /** A build of 441 skills reported every 64, one report every `stepMs`. */
  function build(isTTY: boolean, stepMs: number, options: { after?: number } = {}): string {
    const out = stream(isTTY);
    let now = 0;
    const progress = new BuildProgress(out, { ...options, now: () => now });
    for (let done = 0; done < 441; done = Math.min(441, done + 64)) {
      progress.update(done, 441);
      now += stepMs;
    }
    progress.update(441, 441);
    return out.text;
  }

  it('off a terminal: a plain line at most once a second, with the rate and the time left, and the last one', () => {
    expect(build(false, 400).split('\n')).toEqual([
      'indexing 0/441 skills',
      'indexing 192/441 skills (160/s, 2 s left)',
      'indexing 384/441 skills (160/s, 1 s left)',
      'indexing 441/441 skills (158/s)',
      '',
    ]);
  });

  it('on a terminal: a bar redrawn in place, ended by a newline', () => {
    const text = build(true, 400);
    const frames = text.split('\r\u001b[2K').filter(Boolean);
    expect(frames).toHaveLength(8);
    expect(frames[1]).toBe('indexing  [###---------------------]  14%  64/441 skills  160/s, 2 s left');
    expect(frames.at(-1)).toBe('indexing  [########################] 100%  441/441 skills  158/s\n');
  });

  it('says nothing before `after`: a build done sooner stays silent', () => {
    expect(build(false, 100, { after: 1000 })).toBe('');
    expect(build(false, 400, { after: 1000 }).split('\n')[0]).toBe('indexing 192/441 skills (160/s, 2 s left)');
  });
});
