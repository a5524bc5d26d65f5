/**
 * Reads the vectors out of a graph file written by hnswlib (`vector-data` format 1, the index
 * before usearch), so that upgrading rebuilds the graph without embedding every skill again.
 * Read-only and pure JS: the file is never handed to a native reader.
 *
 * hnswlib's `saveIndex` writes a 96-byte header (six size_t, an int, a u32, four size_t/double,
 * one size_t), then the level-0 block, one element after another, each `[links · vector · u64 label]`.
 */
const HEADER_BYTES = 96;
/** A stored vector is normalised: one whose norm is further from 1 means the layout was misread. */
const NORM_TOLERANCE = 1e-3;

/** Each label's vector, or undefined when the file does not have that layout for `dimensions`-long f32 vectors. */
export function hnswlibVectors(bytes: Buffer, dimensions: number): Map<number, Float32Array> | undefined {
  if (bytes.length < HEADER_BYTES) return undefined;
  const field = (at: number): number => Number(bytes.readBigUInt64LE(at));
  const [offsetLevel0, count, elementBytes, labelOffset, dataOffset] = [field(0), field(16), field(24), field(32), field(40)];
  if (offsetLevel0 !== 0 || labelOffset !== dataOffset + 4 * dimensions || elementBytes !== labelOffset + 8) return undefined;
  if (HEADER_BYTES + count * elementBytes > bytes.length) return undefined;
  const vectors = new Map<number, Float32Array>();
  for (let slot = 0; slot < count; slot += 1) {
    const start = HEADER_BYTES + slot * elementBytes;
    const label = Number(bytes.readBigUInt64LE(start + labelOffset));
    const vector = new Float32Array(dimensions);
    Buffer.from(vector.buffer).set(bytes.subarray(start + dataOffset, start + dataOffset + 4 * dimensions));
    let norm = 0;
    for (const value of vector) norm += value * value;
    if (!(Math.abs(Math.sqrt(norm) - 1) <= NORM_TOLERANCE)) return undefined;
    vectors.set(label, vector);
  }
  return vectors;
}
