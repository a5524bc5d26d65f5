/**
 * onnxruntime-node, the one native runtime behind every encoder: the bundled USE-lite
 * (use-lite-native.ts) and downloaded Transformers.js-layout models (transformers.ts). The few
 * parts of its API we call, and how it is loaded. It is a CommonJS package, and `require`
 * loads it in a cold process 10–15 ms sooner than `import()`, which runs it through the ES
 * module loader's translation of CommonJS. Its own module, so tests can stand in for it.
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SkillSearchError } from '../errors.js';
import { bundledVersion } from '../util/bundled.js';
import { installedPackage } from '../util/installed-package.js';

export interface OrtTensorConstructor {
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

/**
 * onnxruntime-node 1.14.0 ships its binding for these platforms inside the npm package (glibc
 * builds for Linux); anywhere else no encoder can run, only the `hash` model.
 */
export const ONNXRUNTIME_PLATFORMS: readonly string[] = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'win32-x64', 'win32-arm64'];

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

/**
 * onnxruntime-node's JavaScript and onnxruntime-common's as the CLI bundle carries them
 * (scripts/bundle-cli.ts), compiled with the bundle and under its code cache: requiring the
 * packages' files cost a cold hook about 3 ms (docs/cold-start.md, tenth round). Its binding is
 * still the installed package's, required by the bundle through the package's name. Only when
 * the installed package is the version bundled; undefined otherwise (the installed package is
 * then required) and outside the bundle.
 */
function bundledRuntime(): OrtModule | undefined {
  const bundled = bundledVersion('onnxruntime-node');
  if (bundled === undefined) return undefined;
  const installed = installedPackage('onnxruntime-node', dirname(fileURLToPath(import.meta.url)));
  return installed?.manifest.version === bundled ? (require('onnxruntime-node') as OrtModule) : undefined;
}
