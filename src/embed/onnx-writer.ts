/** A minimal ONNX encoder: the protobuf messages a feed-forward graph needs (field numbers from onnx.proto), without a protobuf dependency. */
import { SkillSearchError } from '../errors.js';

export const OnnxType = { FLOAT: 1, INT32: 6, INT64: 7, BOOL: 9 } as const;
type OnnxTypeCode = (typeof OnnxType)[keyof typeof OnnxType];

/** An attribute: an int, a float (`{ float }`, so 1.0 stays a float), or a list of ints. */
type OnnxAttribute = number | { readonly float: number } | readonly number[];

export interface OnnxNode {
  readonly op: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly attributes?: Readonly<Record<string, OnnxAttribute>>;
}

/** Bytes written straight into the output buffer when the model is assembled. */
export interface ByteSource {
  readonly byteLength: number;
  copyTo(target: Uint8Array): void;
}

export interface OnnxTensor {
  readonly name: string;
  readonly type: OnnxTypeCode;
  readonly dims: readonly number[];
  /** Typed values, or raw little-endian bytes of `type`. */
  readonly data: Float32Array | Int32Array | BigInt64Array | Uint8Array | ByteSource;
}

const ELEMENT_BYTES: Record<OnnxTypeCode, number> = { 1: 4, 6: 4, 7: 8, 9: 1 };

interface OnnxValueInfo {
  readonly name: string;
  readonly type: OnnxTypeCode;
  /** Numbers are fixed sizes; strings are symbolic (dynamic) dimensions. */
  readonly dims: readonly (number | string)[];
}

export interface OnnxGraph {
  readonly name: string;
  readonly nodes: readonly OnnxNode[];
  readonly initializers: readonly OnnxTensor[];
  readonly inputs: readonly OnnxValueInfo[];
  readonly outputs: readonly OnnxValueInfo[];
}

export interface OnnxModelOptions {
  /** Default-domain opset version. */
  readonly opset: number;
  readonly producer: string;
}

const IR_VERSION = 8;
const ATTRIBUTE_FLOAT = 1;
const ATTRIBUTE_INT = 2;
const ATTRIBUTE_INTS = 7;

/** Encoded bytes as chunks plus their total length: nesting only prepends headers, so weights are copied once. */
interface Bytes {
  readonly chunks: readonly (Uint8Array | ByteSource)[];
  readonly length: number;
}

function varint(value: number | bigint): number[] {
  let v = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) byte |= 0x80;
    out.push(byte);
  } while (v !== 0n);
  return out;
}

const leaf = (data: Uint8Array | ByteSource): Bytes => ({ chunks: [data], length: data.byteLength });
const join = (parts: readonly Bytes[]): Bytes => ({ chunks: parts.flatMap((part) => part.chunks), length: parts.reduce((sum, part) => sum + part.length, 0) });
const tag = (field: number, wire: number): number[] => varint((field << 3) | wire);
const int = (field: number, value: number | bigint): Bytes => leaf(Uint8Array.from([...tag(field, 0), ...varint(value)]));
const bytes = (field: number, data: Bytes): Bytes => join([leaf(Uint8Array.from([...tag(field, 2), ...varint(data.length)])), data]);
const str = (field: number, value: string): Bytes => bytes(field, leaf(Buffer.from(value, 'utf8')));
const message = (field: number, parts: readonly Bytes[]): Bytes => bytes(field, join(parts));
const packedInts = (field: number, values: readonly number[]): Bytes => bytes(field, leaf(Uint8Array.from(values.flatMap((v) => varint(v)))));

function float32(field: number, value: number): Bytes {
  const out = new Uint8Array(5);
  out[0] = (field << 3) | 5;
  new DataView(out.buffer).setFloat32(1, value, true);
  return leaf(out);
}

function attribute(name: string, value: OnnxAttribute): Bytes {
  // AttributeProto: name=1, f=2, i=3, ints=8, type=20.
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) throw new SkillSearchError('INTERNAL', `Expected attribute \`${name}\` to be an integer, got \`${value}\` (use { float })`);
    return message(5, [str(1, name), int(3, value), int(20, ATTRIBUTE_INT)]);
  }
  if ('float' in value) return message(5, [str(1, name), float32(2, value.float), int(20, ATTRIBUTE_FLOAT)]);
  return message(5, [str(1, name), packedInts(8, value), int(20, ATTRIBUTE_INTS)]);
}

/** NodeProto: input=1, output=2, name=3, op_type=4, attribute=5. */
function encodeNode(node: OnnxNode, index: number): Bytes {
  const attributes = Object.entries(node.attributes ?? {}).map(([name, value]) => attribute(name, value));
  return message(1, [
    ...node.inputs.map((input) => str(1, input)),
    ...node.outputs.map((output) => str(2, output)),
    str(3, `${node.op}_${index}`),
    str(4, node.op),
    ...attributes,
  ]);
}

/** A tensor's offset in the separate data file, or undefined to keep its bytes in the model. */
type PlaceTensor = (raw: Uint8Array | ByteSource) => number | undefined;

/** TensorProto: dims=1, data_type=2, name=8, raw_data=9 (little-endian); or external_data=13 with data_location=14 EXTERNAL (1). */
function encodeTensor(tensor: OnnxTensor, place: PlaceTensor, location: string | undefined): Bytes {
  const expected = tensor.dims.reduce((a, b) => a * b, 1) * ELEMENT_BYTES[tensor.type];
  if (tensor.data.byteLength !== expected) {
    throw new SkillSearchError(
      'INTERNAL',
      `Tensor \`${tensor.name}\` has ${tensor.data.byteLength} bytes, its dims [${tensor.dims.join(', ')}] need ${expected}`,
    );
  }
  const { data } = tensor;
  const raw = 'copyTo' in data ? data : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const header = [packedInts(1, tensor.dims), int(2, tensor.type), str(8, tensor.name)];
  const offset = place(raw);
  if (offset === undefined) return message(5, [...header, bytes(9, leaf(raw))]);
  const entry = (key: string, value: string): Bytes => message(13, [str(1, key), str(2, value)]);
  return message(5, [...header, entry('location', location!), entry('offset', String(offset)), entry('length', String(raw.byteLength)), int(14, 1)]);
}

/** ValueInfoProto{name=1, type=2: TypeProto{tensor_type=1: {elem_type=1, shape=2: {dim=1: {dim_value=1 | dim_param=2}}}}}. */
function encodeValueInfo(field: number, info: OnnxValueInfo): Bytes {
  const shape = info.dims.map((dim) => message(1, [typeof dim === 'number' ? int(1, dim) : str(2, dim)]));
  return message(field, [str(1, info.name), message(2, [message(1, [int(1, info.type), message(2, shape)])])]);
}

/** Copies chunks into one buffer of `length` bytes, each at its offset (consecutive when not given). */
function assemble(chunks: readonly (Uint8Array | ByteSource)[], length: number, offsets?: readonly number[]): Uint8Array {
  const out = new Uint8Array(length);
  let offset = 0;
  for (const [index, chunk] of chunks.entries()) {
    if (offsets !== undefined) offset = offsets[index]!;
    if (chunk instanceof Uint8Array) out.set(chunk, offset);
    else chunk.copyTo(out.subarray(offset, offset + chunk.byteLength));
    offset += chunk.byteLength;
  }
  return out;
}

/** Tensors in a data file start at multiples of this, so onnxruntime maps the file instead of copying it. */
export const EXTERNAL_DATA_ALIGNMENT = 64 * 1024;

export interface ExternalDataLayout {
  /** The data file's name: onnxruntime looks for it beside the model file. */
  readonly location: string;
  /** Tensors of at least this many bytes go to the data file; smaller ones stay in the model. */
  readonly minBytes: number;
}

/**
 * Serialises a model, ModelProto{ir_version=1, producer_name=2, graph=7, opset_import=8}: every tensor
 * inside it, or with `layout` the large ones in a separate data file, each at an {@link EXTERNAL_DATA_ALIGNMENT} offset.
 */
export function encodeOnnxModel(graph: OnnxGraph, options: OnnxModelOptions, layout?: ExternalDataLayout): { model: Uint8Array; data: Uint8Array } {
  const placed: (Uint8Array | ByteSource)[] = [];
  const offsets: number[] = [];
  let end = 0;
  const place: PlaceTensor = (raw) => {
    if (layout === undefined || raw.byteLength < layout.minBytes) return undefined;
    const offset = Math.ceil(end / EXTERNAL_DATA_ALIGNMENT) * EXTERNAL_DATA_ALIGNMENT;
    placed.push(raw);
    offsets.push(offset);
    end = offset + raw.byteLength;
    return offset;
  };
  // GraphProto: node=1, name=2, initializer=5, input=11, output=12.
  const body = [
    ...graph.nodes.map((node, index) => encodeNode(node, index)),
    str(2, graph.name),
    ...graph.initializers.map((tensor) => encodeTensor(tensor, place, layout?.location)),
    ...graph.inputs.map((input) => encodeValueInfo(11, input)),
    ...graph.outputs.map((output) => encodeValueInfo(12, output)),
  ];
  const model = join([int(1, IR_VERSION), str(2, options.producer), message(7, body), message(8, [str(1, ''), int(2, options.opset)])]);
  return { model: assemble(model.chunks, model.length), data: assemble(placed, end, offsets) };
}
