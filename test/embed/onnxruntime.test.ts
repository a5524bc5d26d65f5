import { afterEach, describe, expect, it, vi } from 'vitest';

// The loader's words when the binding cannot load: the platform, what ships, and the way out.
vi.mock('node:module', async (original) => ({
  ...(await original<typeof import('node:module')>()),
  createRequire: () => () => {
    throw new Error('Cannot find module ../bin/napi-v3/freebsd/x64/onnxruntime_binding.node\nRequire stack: …');
  },
}));

describe('loadOnnxRuntime', () => {
  const { platform, arch } = process;
  afterEach(() => {
    Object.defineProperty(process, 'platform', { value: platform });
    Object.defineProperty(process, 'arch', { value: arch });
  });

  it('names a platform onnxruntime-node has no binary for, and the hash model', async () => {
    Object.defineProperty(process, 'platform', { value: 'freebsd' });
    Object.defineProperty(process, 'arch', { value: 'x64' });
    const { loadOnnxRuntime } = await import('../../src/embed/onnxruntime.js');
    expect(() => loadOnnxRuntime()).toThrow(
      'skill-search: cannot load the ONNX runtime: onnxruntime-node has no binary for freebsd-x64 (it ships linux-x64, linux-arm64, darwin-x64, darwin-arm64, win32-x64, win32-arm64); use --model hash to search without an encoder',
    );
  });

  it("gives the loader's first line on a platform it ships for", async () => {
    Object.defineProperty(process, 'platform', { value: 'linux' });
    Object.defineProperty(process, 'arch', { value: 'x64' });
    const { loadOnnxRuntime } = await import('../../src/embed/onnxruntime.js');
    expect(() => loadOnnxRuntime()).toThrow(
      'skill-search: cannot load the ONNX runtime: Cannot find module ../bin/napi-v3/freebsd/x64/onnxruntime_binding.node; use --model hash',
    );
    expect(() => loadOnnxRuntime()).toThrow(expect.objectContaining({ code: 'MODEL_NOT_FOUND' }));
  });
});
