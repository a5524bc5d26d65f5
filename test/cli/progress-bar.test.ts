import { describe, expect, it } from 'vitest';
import { ProgressBar } from '../../src/cli/progress-bar.js';

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
