/**
 * Writes a tiny random BERT-shaped ONNX model with a WordPiece tokenizer, in transformers.js
 * layout, so the Transformers.js embedder can be tested fully offline:
 *
 *   <dir>/config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx
 *
 *   npx tsx scripts/make-tiny-model.ts <dir> [--hidden 32] [--seed 1]
 *
 * The graph: last_hidden_state = tanh(word_emb[input_ids] + type_emb[token_type_ids]) · mask,
 * i.e. a random bag-of-tokens encoder. After mean pooling, texts sharing words get similar
 * vectors — enough for ranking tests, and it exercises tokenizer, session and pooling.
 * The ONNX protobuf is encoded by hand below (field numbers from onnx.proto), no dependency.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { prng as random } from './prng.js';

// ---- minimal protobuf writer -------------------------------------------------------------

type Field = Uint8Array;

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

const concat = (parts: readonly Uint8Array[]): Uint8Array => Buffer.concat(parts);
const tag = (field: number, wire: number): number[] => varint((field << 3) | wire);
const int = (field: number, value: number | bigint): Field => Uint8Array.from([...tag(field, 0), ...varint(value)]);
const bytes = (field: number, data: Uint8Array): Field => concat([Uint8Array.from([...tag(field, 2), ...varint(data.length)]), data]);
const str = (field: number, value: string): Field => bytes(field, Buffer.from(value, 'utf8'));
const message = (field: number, parts: readonly Field[]): Field => bytes(field, concat(parts));
const packedInts = (field: number, values: readonly number[]): Field => bytes(field, Uint8Array.from(values.flatMap((v) => varint(v))));

// ---- ONNX messages (onnx.proto field numbers) --------------------------------------------

const FLOAT = 1;
const INT64 = 7;
const ATTRIBUTE_INT = 2;

/** TensorProto: dims=1, data_type=2, name=8, raw_data=9. */
function tensor(field: number, name: string, dataType: number, dims: readonly number[], raw: Uint8Array): Field {
  return message(field, [packedInts(1, dims), int(2, dataType), str(8, name), bytes(9, raw)]);
}

/** ValueInfoProto{name=1, type=2: TypeProto{tensor_type=1: {elem_type=1, shape=2: {dim=1: {dim_value=1 | dim_param=2}}}}}. */
function valueInfo(field: number, name: string, elemType: number, dims: readonly (number | string)[]): Field {
  const shape = dims.map((dim) => message(1, [typeof dim === 'number' ? int(1, dim) : str(2, dim)]));
  return message(field, [str(1, name), message(2, [message(1, [int(1, elemType), message(2, shape)])])]);
}

/** NodeProto: input=1, output=2, name=3, op_type=4, attribute=5 (AttributeProto name=1, i=3, type=20). */
function node(opType: string, inputs: readonly string[], outputs: readonly string[], intAttributes: Record<string, number> = {}): Field {
  const attributes = Object.entries(intAttributes).map(([name, value]) => message(5, [str(1, name), int(3, value), int(20, ATTRIBUTE_INT)]));
  return message(1, [...inputs.map((i) => str(1, i)), ...outputs.map((o) => str(2, o)), str(3, `${opType}_${outputs[0]}`), str(4, opType), ...attributes]);
}

function floatBytes(values: Float32Array): Uint8Array {
  return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
}


function encodeModel(vocabSize: number, hidden: number, seed: number): Uint8Array {
  const next = random(seed);
  const gaussianish = (): number => (next() + next() + next() - 1.5) * 1.2;
  const wordEmbeddings = Float32Array.from({ length: vocabSize * hidden }, gaussianish);
  // Special tokens ([CLS], [SEP], …) sit in every text; zero rows keep them from dominating the mean.
  wordEmbeddings.fill(0, 0, SPECIAL.length * hidden);
  const typeEmbeddings = Float32Array.from({ length: 2 * hidden }, () => gaussianish() * 0.1);
  const axes = new BigInt64Array([-1n]);

  const graph = [
    node('Gather', ['word_embeddings', 'input_ids'], ['words'], { axis: 0 }),
    node('Gather', ['type_embeddings', 'token_type_ids'], ['types'], { axis: 0 }),
    node('Add', ['words', 'types'], ['summed']),
    node('Tanh', ['summed'], ['activated']),
    node('Cast', ['attention_mask'], ['mask_float'], { to: FLOAT }),
    node('Unsqueeze', ['mask_float', 'last_axis'], ['mask_3d']),
    node('Mul', ['activated', 'mask_3d'], ['last_hidden_state']),
    str(2, 'tiny-bert'),
    tensor(5, 'word_embeddings', FLOAT, [vocabSize, hidden], floatBytes(wordEmbeddings)),
    tensor(5, 'type_embeddings', FLOAT, [2, hidden], floatBytes(typeEmbeddings)),
    tensor(5, 'last_axis', INT64, [1], new Uint8Array(axes.buffer)),
    valueInfo(11, 'input_ids', INT64, ['batch', 'sequence']),
    valueInfo(11, 'attention_mask', INT64, ['batch', 'sequence']),
    valueInfo(11, 'token_type_ids', INT64, ['batch', 'sequence']),
    valueInfo(12, 'last_hidden_state', FLOAT, ['batch', 'sequence', hidden]),
  ];
  // ModelProto: ir_version=1, producer_name=2, graph=7, opset_import=8 {domain=1, version=2}.
  return concat([int(1, 7), str(2, 'skill-search make-tiny-model'), message(7, graph), message(8, [str(1, ''), int(2, 13)])]);
}

// ---- tokenizer ---------------------------------------------------------------------------

const SPECIAL = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'] as const;
/** Whole words get their own vector; anything else falls back to single characters. */
const WORDS = (
  'the a of to and in for on with from by is are be this that it as at or an not your you can how what when ' +
  'pdf document documents file files page pages text table tables extract merge split form word excel spreadsheet ' +
  'chart charts formula formulas slide slides deck presentation image images photo resize crop convert ' +
  'test tests failing fail bug bugs debug debugging root cause code review pull request git branch commit ' +
  'deploy kubernetes docker container server database sql query queries slow index fast performance ' +
  'translate translation language chinese japanese english write writing read create build design web page ' +
  'security audit vulnerability data plot graph histogram weather forecast music song travel trip hotel flight'
).split(' ');

function tokenizerJson(vocab: readonly string[]): unknown {
  const ids = Object.fromEntries(vocab.map((token, id) => [token, id]));
  const special = (token: string): unknown => ({ id: token, ids: [ids[token]], tokens: [token] });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL.map((content) => ({ id: ids[content], content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: { '[CLS]': special('[CLS]'), '[SEP]': special('[SEP]') },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: ids },
  };
}

export interface TinyModelOptions {
  /** @default 32 */
  readonly hidden?: number;
  /** @default 1 */
  readonly seed?: number;
}

/** Writes the model folder; returns its absolute path. */
export function makeTinyModel(dir: string, options: TinyModelOptions = {}): string {
  const hidden = options.hidden ?? 32;
  const seed = options.seed ?? 1;
  const target = resolve(dir);
  const characters = [...'abcdefghijklmnopqrstuvwxyz0123456789'];
  const vocab = [...new Set([...SPECIAL, ...WORDS, ...characters, ...characters.map((c) => `##${c}`), '.', ',', '?', '!', '-', '_', '/', ':'])];
  mkdirSync(join(target, 'onnx'), { recursive: true });
  writeFileSync(join(target, 'onnx', 'model.onnx'), encodeModel(vocab.length, hidden, seed));
  writeFileSync(join(target, 'tokenizer.json'), JSON.stringify(tokenizerJson(vocab)));
  writeFileSync(
    join(target, 'tokenizer_config.json'),
    JSON.stringify({ tokenizer_class: 'BertTokenizer', do_lower_case: true, model_max_length: 512, cls_token: '[CLS]', sep_token: '[SEP]', pad_token: '[PAD]', unk_token: '[UNK]', mask_token: '[MASK]' }),
  );
  writeFileSync(
    join(target, 'config.json'),
    JSON.stringify({ model_type: 'bert', architectures: ['BertModel'], hidden_size: hidden, vocab_size: vocab.length, max_position_embeddings: 512, type_vocab_size: 2, pad_token_id: 0 }),
  );
  return target;
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('make-tiny-model.ts')) {
  const { positionals, values } = parseArgs({ allowPositionals: true, options: { hidden: { type: 'string' }, seed: { type: 'string' } } });
  const dir = positionals[0];
  if (dir === undefined) {
    console.error('usage: make-tiny-model.ts <dir> [--hidden 32] [--seed 1]');
    process.exit(1);
  }
  const written = makeTinyModel(dir, {
    ...(values.hidden === undefined ? {} : { hidden: Number(values.hidden) }),
    ...(values.seed === undefined ? {} : { seed: Number(values.seed) }),
  });
  console.log(written);
}
