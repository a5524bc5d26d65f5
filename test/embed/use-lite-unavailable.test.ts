import { describe, expect, it, vi } from 'vitest';

// A platform where onnxruntime's native binding cannot load: there is no second runtime, so
// the default embedder fails with the loader's one-line reason, and tries again next time.
vi.mock('../../src/embed/onnxruntime.js', () => ({
  loadOnnxRuntime: vi.fn(() => {
    throw new Error('skill-search: cannot load the ONNX runtime: onnxruntime_binding.node: cannot open shared object file');
  }),
}));

describe('USE-lite without onnxruntime', () => {
  it('fails with the reason, and loads again on the next call', async () => {
    const { loadOnnxRuntime } = await import('../../src/embed/onnxruntime.js');
    const { createUseLiteEmbedder } = await import('../../src/embed/use-lite.js');
    const embedder = createUseLiteEmbedder();
    await expect(embedder.embed(['merge two PDF files'])).rejects.toThrow(/cannot open shared object file/);
    await expect(embedder.embed(['merge two PDF files'])).rejects.toThrow(/cannot open shared object file/);
    expect(vi.mocked(loadOnnxRuntime)).toHaveBeenCalledTimes(2);
  });
});
