import { describe, expect, it, vi } from 'vitest';
import type { OrtModule } from '../../src/embed/onnxruntime.js';

// The real runtime, with every session's model and options recorded.
const made = vi.hoisted(() => [] as { model: string; options: Record<string, unknown> }[]);
vi.mock('../../src/embed/onnxruntime.js', async (original) => {
  const actual = await original<typeof import('../../src/embed/onnxruntime.js')>();
  return {
    ...actual,
    loadOnnxRuntime: (): OrtModule => {
      const ort = actual.loadOnnxRuntime();
      return {
        Tensor: ort.Tensor,
        InferenceSession: {
          create: (model, options) => {
            made.push({ model: typeof model === 'string' ? model : 'bytes', options });
            return ort.InferenceSession.create(model, options);
          },
        },
      };
    },
  };
});

describe('the USE-lite sessions', () => {
  it('make the query session without graph optimisations, and what the store keeps with all of them', async () => {
    const { createNativeUseLiteRuntime } = await import('../../src/embed/use-lite.js');
    const runtime = await createNativeUseLiteRuntime();
    await runtime.embed(['merge two PDF files'], undefined, 'query');
    await runtime.embed(['Merges PDF files into one document.']);
    const levels = made.map(({ model, options }) => [model.endsWith('.query') ? 'query' : 'passage', options['graphOptimizationLevel']]);
    expect(levels).toEqual([
      ['query', 'disabled'],
      ['passage', 'all'],
    ]);
  }, 60_000);
});
