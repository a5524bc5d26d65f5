import { describe, expect, it } from 'vitest';
import ortModule from 'onnxruntime-node';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeOnnxModel, EXTERNAL_DATA_ALIGNMENT, OnnxType } from '../../src/embed/onnx-writer.js';
import type { OnnxGraph } from '../../src/embed/onnx-writer.js';
import { useTempDirs } from '../support/temp-dirs.js';

const tempDir = useTempDirs('onnx-writer');

type Ort = typeof ortModule;
const ort: Ort = (ortModule as Ort & { default?: Ort }).InferenceSession ? ortModule : (ortModule as unknown as { default: Ort }).default;

// y = Transpose(LayerNorm(x · w + b), perm [1, 0]); w and b come from a deferred byte source.
function graph(epsilon: number): OnnxGraph {
  const weights = Float32Array.of(1, 0, 0, 2, 3, -1);
  return {
    name: 'writer-test',
    nodes: [
      { op: 'MatMul', inputs: ['x', 'w'], outputs: ['xw'] },
      { op: 'Add', inputs: ['xw', 'b'], outputs: ['z'] },
      { op: 'LayerNormalization', inputs: ['z', 'scale', 'shift'], outputs: ['n'], attributes: { axis: -1, epsilon: { float: epsilon } } },
      { op: 'Transpose', inputs: ['n'], outputs: ['y'], attributes: { perm: [1, 0] } },
    ],
    initializers: [
      {
        name: 'w',
        type: OnnxType.FLOAT,
        dims: [2, 3],
        data: { byteLength: weights.byteLength, copyTo: (target) => target.set(new Uint8Array(weights.buffer)) },
      },
      { name: 'b', type: OnnxType.FLOAT, dims: [3], data: Float32Array.of(0.5, 0, -0.5) },
      { name: 'scale', type: OnnxType.FLOAT, dims: [3], data: Float32Array.of(1, 1, 1) },
      { name: 'shift', type: OnnxType.FLOAT, dims: [3], data: Float32Array.of(0, 0, 0) },
    ],
    inputs: [{ name: 'x', type: OnnxType.FLOAT, dims: ['rows', 2] }],
    outputs: [{ name: 'y', type: OnnxType.FLOAT, dims: [3, 'rows'] }],
  };
}

function layerNorm(row: number[], epsilon: number): number[] {
  const mean = row.reduce((a, b) => a + b, 0) / row.length;
  const variance = row.reduce((a, b) => a + (b - mean) ** 2, 0) / row.length;
  return row.map((v) => (v - mean) / Math.sqrt(variance + epsilon));
}

describe('encodeOnnxModel', () => {
  it('writes a model onnxruntime loads and runs as specified (float and int-list attributes, deferred bytes)', async () => {
    const epsilon = 0.25; // large enough to change the output, so a lost float attribute would show
    const session = await ort.InferenceSession.create(encodeOnnxModel(graph(epsilon), { opset: 17, producer: 'test' }).model);
    const x = Float32Array.of(1, 2, -1, 0.5);
    const { y } = await session.run({ x: new ort.Tensor('float32', x, [2, 2]) });
    expect(y!.dims).toEqual([3, 2]);
    const rows = [
      layerNorm([1 * 1 + 2 * 2 + 0.5, 1 * 0 + 2 * 3, 1 * 0 + 2 * -1 - 0.5], epsilon),
      layerNorm([-1 * 1 + 0.5 * 2 + 0.5, -1 * 0 + 0.5 * 3, -1 * 0 + 0.5 * -1 - 0.5], epsilon),
    ];
    const expected = [0, 1, 2].flatMap((column) => rows.map((row) => row[column]!));
    Array.from(y!.data as Float32Array).forEach((value, i) => expect(value).toBeCloseTo(expected[i]!, 5));
  });

  it('splits tensors from a size up into an aligned data file that onnxruntime reads beside the model', async () => {
    const options = { opset: 17, producer: 'test' };
    // Only w (24 bytes, a deferred source) reaches a 13-byte floor; b, scale and shift have 12 each.
    const { model, data } = encodeOnnxModel(graph(0.25), options, { location: 'weights.data', minBytes: 13 });
    expect(data.length).toBe(24);
    // With a 12-byte floor all four go, each at the next aligned offset: w, b, scale, shift.
    const all = encodeOnnxModel(graph(0.25), options, { location: 'weights.data', minBytes: 12 });
    expect(all.data.length).toBe(3 * EXTERNAL_DATA_ALIGNMENT + 12);
    const x = new ort.Tensor('float32', Float32Array.of(1, 2, -1, 0.5), [2, 2]);
    const inline = await (await ort.InferenceSession.create(encodeOnnxModel(graph(0.25), options).model)).run({ x });
    for (const split of [{ model, data }, all]) {
      const dir = tempDir();
      writeFileSync(join(dir, 'model.onnx'), split.model);
      writeFileSync(join(dir, 'weights.data'), split.data);
      const { y } = await (await ort.InferenceSession.create(join(dir, 'model.onnx'))).run({ x });
      expect(Array.from(y!.data as Float32Array)).toEqual(Array.from(inline['y']!.data as Float32Array));
    }
  });

  it('rejects a tensor whose data does not fill its dims', () => {
    const broken: OnnxGraph = { ...graph(1e-5), initializers: [{ name: 'b', type: OnnxType.FLOAT, dims: [4], data: Float32Array.of(1, 2, 3) }] };
    expect(() => encodeOnnxModel(broken, { opset: 17, producer: 'test' })).toThrow('Tensor `b` has 12 bytes, its dims [4] need 16');
  });

  it('refuses a non-integer int attribute instead of truncating it', () => {
    const broken: OnnxGraph = { ...graph(1e-5), nodes: [{ op: 'Softmax', inputs: ['x'], outputs: ['y'], attributes: { axis: 0.5 } }] };
    expect(() => encodeOnnxModel(broken, { opset: 17, producer: 'test' })).toThrow('Expected attribute `axis` to be an integer, got `0.5`');
  });
});
