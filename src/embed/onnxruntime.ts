/**
 * onnxruntime-node, the runtime behind every encoder: the parts of its API we call, and its loading.
 * `require`d, which a cold process does sooner than `import()`; its own module, so tests can replace it.
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SkillSearchError } from '../errors.js';
import { bundledVersion } from '../util/bundled.js';
import { installedPackage } from '../util/installed-package.js';

interface OrtTensorConstructor {
  new (type: 'int64', data: BigInt64Array, dims: readonly number[]): unknown;
  new (type: 'float32', data: Float32Array, dims: readonly number[]): unknown;
}

export interface OrtSession {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  run(feeds: Record<string, unknown>): Promise<Record<string, { readonly data: unknown; readonly dims: readonly number[] }>>;
}

export interface OrtModule {
  readonly InferenceSession: { create(model: string | Uint8Array, options: Record<string, unknown>): Promise<OrtSession> };
  readonly Tensor: OrtTensorConstructor;
}

/** Where onnxruntime-node 1.14.0 ships a binding (glibc on Linux); elsewhere only the `hash` model runs. */
const ONNXRUNTIME_PLATFORMS: readonly string[] = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'win32-x64', 'win32-arm64'];

/** Loads onnxruntime-node (its native binding with it); throws a MODEL_NOT_FOUND error naming the platform where the binding cannot load. */
export function loadOnnxRuntime(): OrtModule {
  try {
    return bundledRuntime() ?? (createRequire(import.meta.url)('onnxruntime-node') as OrtModule);
  } catch (error) {
    const platform = `${process.platform}-${process.arch}`;
    const why = ONNXRUNTIME_PLATFORMS.includes(platform)
      ? (error instanceof Error ? error.message : String(error)).split('\n')[0]
      : `onnxruntime-node has no binary for ${platform} (it ships ${ONNXRUNTIME_PLATFORMS.join(', ')})`;
    throw new SkillSearchError('MODEL_NOT_FOUND', `cannot load the ONNX runtime: ${why}; use --model hash to search without an encoder`, { cause: error });
  }
}

/** onnxruntime's JavaScript from the CLI bundle (scripts/bundle-cli.ts), with the installed binding; undefined outside it or for another version. */
function bundledRuntime(): OrtModule | undefined {
  const bundled = bundledVersion('onnxruntime-node');
  if (bundled === undefined) return undefined;
  const installed = installedPackage('onnxruntime-node', dirname(fileURLToPath(import.meta.url)));
  return installed?.manifest.version === bundled ? (require('onnxruntime-node') as OrtModule) : undefined;
}
