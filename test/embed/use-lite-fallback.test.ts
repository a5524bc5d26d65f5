import { describe, expect, it, vi } from 'vitest';

// A platform without onnxruntime's native binding: the default embedder must still work,
// on the TF.js WASM runtime, and say why.
vi.mock('../../src/embed/onnxruntime.js', () => ({
  loadOnnxRuntime: () => {
    throw new Error('onnxruntime_binding.node: cannot open shared object file');
  },
}));

describe('USE-lite without onnxruntime', () => {
  it('falls back to TF.js WASM and records the reason', async () => {
    const { createUseLiteEmbedder, loadedUseLiteRuntime, useLiteRuntimeInfo } = await import('../../src/embed/use-lite.js');
    expect(loadedUseLiteRuntime()).toBeUndefined();
    const [vector] = await createUseLiteEmbedder().embed(['merge two PDF files']);
    expect(vector).toHaveLength(512);
    const info = await useLiteRuntimeInfo();
    expect(info.name).toBe('tfjs-wasm');
    expect(info.fallbackReason).toMatch(/cannot open shared object file/);
    expect(loadedUseLiteRuntime()).toEqual(info);
  });

  it('fails loudly when onnxruntime was asked for explicitly', async () => {
    const { createUseLiteEmbedder, resetUseLiteRuntimeForTests, USE_LITE_RUNTIME_ENV } = await import('../../src/embed/use-lite.js');
    resetUseLiteRuntimeForTests();
    process.env[USE_LITE_RUNTIME_ENV] = 'onnxruntime';
    try {
      await expect(createUseLiteEmbedder().embed(['x'])).rejects.toThrow(/cannot open shared object file/);
    } finally {
      delete process.env[USE_LITE_RUNTIME_ENV];
      resetUseLiteRuntimeForTests();
    }
  });
});
