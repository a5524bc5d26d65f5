/**
 * onnxruntime-node, the native runtime behind the default model (use-lite-native.ts): the few
 * parts of its API we call, and how it is loaded. It is a CommonJS package, and `require`
 * loads it in a cold process 10–15 ms sooner than `import()`, which runs it through the ES
 * module loader's translation of CommonJS. Its own module, so tests can stand in for it.
 */
import { createRequire } from 'node:module';

export interface OrtTensorConstructor {
  new (type: 'int64', data: BigInt64Array, dims: readonly number[]): unknown;
  new (type: 'float32', data: Float32Array, dims: readonly number[]): unknown;
}

export interface OrtSession {
  run(feeds: Record<string, unknown>): Promise<Record<string, { readonly data: unknown; readonly dims: readonly number[] }>>;
}

export interface OrtModule {
  readonly InferenceSession: { create(model: string | Uint8Array, options: Record<string, unknown>): Promise<OrtSession> };
  readonly Tensor: OrtTensorConstructor;
}

/** Loads onnxruntime-node (its native binding with it); throws where the binding cannot load. */
export function loadOnnxRuntime(): OrtModule {
  return createRequire(import.meta.url)('onnxruntime-node') as OrtModule;
}
