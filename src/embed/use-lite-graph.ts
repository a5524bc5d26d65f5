import { SkillSearchError } from '../errors.js';
import { encodeOnnxModel, OnnxType } from './onnx-writer.js';
import type { OnnxGraph, OnnxModelOptions, OnnxNode, OnnxTensor } from './onnx-writer.js';
import type { UseLiteFiles, UseLiteWeight } from './use-lite-weights.js';

/**
 * The bundled USE-lite encoder rebuilt as an ONNX graph from its weights, for onnxruntime.
 *
 * The TF.js graph is a two-layer pre-norm Transformer over SentencePiece ids:
 *   x0 = 2·embedding[id] + timing(position)           (the embedding is added twice, as in the original)
 *   layer 0 (256 → 512): x1 = dense(x0) + attn(LN(x0)) ; x2 = x1 + FFN(LN(x1))
 *   layer 1 (512):       x3 = x2 + attn(LN(x2))        ; x4 = x3 + FFN(LN(x3))
 *   out = l2(tanh(W · mean_over_tokens(x4) + b))
 * with 4 heads, key padding masked by −1e9, LN ε = 1e-6 and ReLU FFNs of width 1536. Padding is
 * masked rather than skipped (valid positions are unchanged), and the last FFN's linear output
 * projection runs after the mean: the same vectors up to float rounding.
 *
 * Inputs: `ids` int64 [batch, length] (padding 0), `mask` float [batch, length] (1 for a token).
 * Output: `embedding` float [batch, 512], unnormalised.
 */

export const USE_LITE_MAX_TOKENS = 128;
/** Part of the graph cache key (use-lite-graph-cache.ts): bump when the graph, the tokenizer's table or the files' layout changes. */
export const USE_LITE_GRAPH_FORMAT = 5;
/** Tensors of this size or more go to a split model's data file. */
const DATA_FILE_MIN_BYTES = 64 * 1024;
const MODEL_OPTIONS: OnnxModelOptions = { opset: 17, producer: 'skill-search use-lite' };
const HEADS = 4;
const LAYER_NORM_EPSILON = 1e-6;
const ATTENTION_MASK_BIAS = -1e9;
const PREFIX = 'module_apply_default/Encoder_en/KonaTransformer/';

/** Nodes and initializers; each method returns the name of what it added. */
function builder() {
  const nodes: OnnxNode[] = [];
  const initializers: OnnxTensor[] = [];
  return {
    nodes,
    initializers,
    op(op: string, inputs: readonly string[], attributes?: OnnxNode['attributes']): string {
      const output = `t${nodes.length}_${op}`;
      nodes.push({ op, inputs, outputs: [output], ...(attributes === undefined ? {} : { attributes }) });
      return output;
    },
    float(name: string, dims: readonly number[], data: Float32Array | UseLiteWeight): string {
      initializers.push({ name, type: OnnxType.FLOAT, dims, data: data instanceof Float32Array ? data : data.bytes });
      return name;
    },
    int64(name: string, values: readonly number[]): string {
      initializers.push({ name, type: OnnxType.INT64, dims: [values.length], data: BigInt64Array.from(values, BigInt) });
      return name;
    },
  };
}

function weightLookup(files: UseLiteFiles): (name: string, shape: readonly number[]) => UseLiteWeight {
  return (name, shape) => {
    const weight = files.weights.get(name) ?? files.weights.get(PREFIX + name);
    const count = shape.reduce((a, b) => a * b, 1);
    if (weight === undefined || weight.dtype !== 'float32' || weight.shape.reduce((a, b) => a * b, 1) !== count) {
      throw new SkillSearchError('INTERNAL', `the bundled USE-lite weights lack ${name} [${shape.join('×')}] (unexpected model version)`);
    }
    return weight;
  };
}

/** Sinusoid timing signal for positions 0…max−1: [sin(p·inv) | cos(p·inv)], as the TF graph computes it. */
function timingTable(inverseTimescales: Float32Array, max: number): Float32Array {
  const half = inverseTimescales.length;
  const table = new Float32Array(max * half * 2);
  for (let p = 0; p < max; p += 1) {
    for (let i = 0; i < half; i += 1) {
      const angle = Math.fround(p * inverseTimescales[i]!);
      table[p * half * 2 + i] = Math.sin(angle);
      table[p * half * 2 + half + i] = Math.cos(angle);
    }
  }
  return table;
}

/** The encoder as an ONNX graph (about 28 MB, almost all of it weights). */
function useLiteGraph(files: UseLiteFiles): OnnxGraph {
  const weight = weightLookup(files);
  const g = builder();
  const vocabularyRows = files.weights.get('module/Embeddings_en')?.shape[0] ?? 0;
  const embeddings = g.float('embeddings', [vocabularyRows, 256], weight('module/Embeddings_en', [vocabularyRows, 256]));
  const timing = g.float(
    'timing',
    [USE_LITE_MAX_TOKENS, 256],
    timingTable(weight('Encode/TransformerStack/Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1', [1, 128]).values() as Float32Array, USE_LITE_MAX_TOKENS),
  );
  const lastAxis = g.int64('axis_last', [-1]);
  const axis1 = g.int64('axis_1', [1]);
  const axes12 = g.int64('axes_1_2', [1, 2]);
  const zero = g.int64('zero', [0]);
  const two = g.int64('two', [2]);
  const one = g.float('one', [], Float32Array.of(1));
  const maskBias = g.float('mask_bias', [], Float32Array.of(ATTENTION_MASK_BIAS));

  // Embedding plus timing signal, padding zeroed.
  const length = g.op('Slice', [g.op('Shape', ['ids']), axis1, two]);
  const positions = g.op('Slice', [timing, zero, length, zero]);
  const embedded = g.op('Gather', [embeddings, 'ids'], { axis: 0 });
  const mask3 = g.op('Unsqueeze', ['mask', lastAxis]);
  let x = g.op('Mul', [g.op('Add', [g.op('Add', [embedded, embedded]), positions]), mask3]);
  const attentionBias = g.op('Unsqueeze', [g.op('Mul', [g.op('Sub', [one, 'mask']), maskBias]), axes12]);
  const tokens = g.op('ReduceSum', ['mask', axis1], { keepdims: 1 });

  /** A partitioned variable's weight name. */
  const concat = (name: string): string => `Encode/${name}/ConcatPartitions/concat`;
  const layerNorm = (input: string, path: string, width: number): string => {
    const scale = g.float(`${path}/scale`, [width], weight(concat(`${path}/layer_norm/layer_norm_scale`), [width]));
    const bias = g.float(`${path}/bias`, [width], weight(concat(`${path}/layer_norm/layer_norm_bias`), [width]));
    return g.op('LayerNormalization', [input, scale, bias], { axis: -1, epsilon: { float: LAYER_NORM_EPSILON } });
  };
  const dense = (input: string, kernelName: string, biasName: string, inWidth: number, outWidth: number, id: string): string =>
    g.op('Add', [
      g.op('MatMul', [input, g.float(`${id}/kernel`, [inWidth, outWidth], weight(kernelName, [inWidth, outWidth]))]),
      g.float(`${id}/bias`, [outWidth], weight(biasName, [outWidth])),
    ]);

  // Attention runs at the layer's input width; both layers write a 512-wide residual stream.
  for (const [layer, width] of [
    [0, 256],
    [1, 512],
  ] as const) {
    const base = `Layer_${layer}/TransformerLayer`;
    const depth = width / HEADS;
    const normed = layerNorm(x, `${base}/layer_prepostprocess`, width);
    /** The kernel and bias names of the `qkv` or `output` transform. */
    const transform = (kind: string): [string, string] => [
      `module/Encoder_en/KonaTransformer/Encode/${base}/MultiheadAttention/${kind}_transform_single/kernel/part_0`,
      concat(`${base}/MultiheadAttention/${kind}_transform_single/bias`),
    ];
    const qkv = dense(normed, ...transform('qkv'), width, 3 * width, `l${layer}/qkv`);
    const headShape = g.int64(`l${layer}/head_shape`, [0, 0, HEADS, depth]);
    const part = (index: number): string =>
      g.op('Slice', [qkv, g.int64(`l${layer}/s${index}`, [index * width]), g.int64(`l${layer}/e${index}`, [(index + 1) * width]), lastAxis]);
    const heads = (input: string, perm: readonly number[]): string => g.op('Transpose', [g.op('Reshape', [input, headShape])], { perm });
    const queries = g.op('Mul', [heads(part(0), [0, 2, 1, 3]), g.float(`l${layer}/scale`, [], Float32Array.of(1 / Math.sqrt(depth)))]);
    const keys = heads(part(1), [0, 2, 3, 1]);
    const values = heads(part(2), [0, 2, 1, 3]);
    const weights = g.op('Softmax', [g.op('Add', [g.op('MatMul', [queries, keys]), attentionBias])], { axis: -1 });
    const context = g.op('Reshape', [
      g.op('Transpose', [g.op('MatMul', [weights, values])], { perm: [0, 2, 1, 3] }),
      g.int64(`l${layer}/merge_shape`, [0, 0, width]),
    ]);
    const attended = dense(context, ...transform('output'), width, 512, `l${layer}/out`);
    // Layer 0 widens the residual stream from 256 to 512 with its own projection.
    const residual = layer === 0 ? dense(x, concat(`${base}/dense/kernel`), concat(`${base}/dense/bias`), 256, 512, 'l0/residual') : x;
    const afterAttention = g.op('Add', [attended, residual]);
    const ffnIn = layerNorm(afterAttention, `${base}/FFN/layer_prepostprocess`, 512);
    const ffnKernel = (n: number): string => `Encode/TransformerStack/${base}/FFN/conv${n}/Tensordot/Reshape_1`;
    const hidden = g.op('Relu', [dense(ffnIn, ffnKernel(1), concat(`${base}/FFN/conv1/bias`), 512, 1536, `l${layer}/ffn1`)]);
    const ffn2Kernel = g.float(`l${layer}/ffn2/kernel`, [1536, 512], weight(ffnKernel(2), [1536, 512]));
    const ffn2Bias = g.float(`l${layer}/ffn2/bias`, [512], weight(concat(`${base}/FFN/conv2/bias`), [512]));
    if (layer === 0) {
      x = g.op('Add', [g.op('Add', [g.op('MatMul', [hidden, ffn2Kernel]), ffn2Bias]), afterAttention]);
    } else {
      // Only the tokens' mean is used and the projection is linear, so it runs once per text:
      //   Σ mask·(a + h·W + b) = Σ mask·a + (Σ mask·h)·W + (Σ mask)·b
      const summedHidden = g.op('ReduceSum', [g.op('Mul', [hidden, mask3]), axis1], { keepdims: 0 });
      const summedResidual = g.op('ReduceSum', [g.op('Mul', [afterAttention, mask3]), axis1], { keepdims: 0 });
      x = g.op('Add', [g.op('Add', [g.op('MatMul', [summedHidden, ffn2Kernel]), g.op('Mul', [tokens, ffn2Bias])]), summedResidual]);
    }
  }

  // x is the sum over each text's real tokens: their mean (over at least one), then the tanh layer.
  const pooled = g.op('Div', [x, g.op('Max', [tokens, one])]);
  const output = g.op('Tanh', [
    dense(pooled, 'module/Encoder_en/hidden_layers/tanh_layer_0/weights', 'module/Encoder_en/hidden_layers/tanh_layer_0/bias', 512, 512, 'tanh'),
  ]);
  g.nodes.push({ op: 'Identity', inputs: [output], outputs: ['embedding'] });

  return {
    name: 'use-lite',
    nodes: g.nodes,
    initializers: g.initializers,
    inputs: [
      { name: 'ids', type: OnnxType.INT64, dims: ['batch', 'length'] },
      { name: 'mask', type: OnnxType.FLOAT, dims: ['batch', 'length'] },
    ],
    outputs: [{ name: 'embedding', type: OnnxType.FLOAT, dims: ['batch', 512] }],
  };
}

/** The encoder as one ONNX model, weights inside. */
export function buildUseLiteOnnx(files: UseLiteFiles): Uint8Array {
  return encodeOnnxModel(useLiteGraph(files), MODEL_OPTIONS).model;
}

/**
 * The encoder as a model file over a data file named `dataFile` (what the graph cache saves), and the {@link queryGraph}
 * over the same data. It yields to the event loop between its long synchronous steps: a hook's budget timer can fire.
 */
export async function buildUseLiteOnnxSplit(files: UseLiteFiles, dataFile: string): Promise<{ model: Uint8Array; data: Uint8Array; query: Uint8Array }> {
  const graph = useLiteGraph(files);
  const layout = { location: dataFile, minBytes: DATA_FILE_MIN_BYTES };
  await new Promise((resolve) => setImmediate(resolve));
  const split = encodeOnnxModel(graph, MODEL_OPTIONS, layout);
  await new Promise((resolve) => setImmediate(resolve));
  // The same tensors in the same order, so the same data file.
  const { model: query } = encodeOnnxModel(queryGraph(graph), MODEL_OPTIONS, layout);
  return { ...split, query };
}

/**
 * The graph with its data-file weights also declared as inputs, so onnxruntime skips pre-packing them (docs/cold-start.md).
 * Its vectors differ from the packed graph's by float rounding (use-lite-query-session.test.ts): queries only, never stored.
 */
function queryGraph(graph: OnnxGraph): OnnxGraph {
  const weights = graph.initializers.filter((tensor) => tensor.type === OnnxType.FLOAT && tensor.data.byteLength >= DATA_FILE_MIN_BYTES);
  return { ...graph, inputs: [...graph.inputs, ...weights.map(({ name, type, dims }) => ({ name, type, dims }))] };
}
