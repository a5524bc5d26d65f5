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
 * The ONNX protobuf is written by src/embed/onnx-writer.ts (no protobuf dependency).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { encodeOnnxModel, OnnxType } from '../src/embed/onnx-writer.js';
import type { OnnxNode } from '../src/embed/onnx-writer.js';
import { prng as random } from './prng.js';

function encodeModel(vocabSize: number, hidden: number, seed: number): Uint8Array {
  const next = random(seed);
  const gaussianish = (): number => (next() + next() + next() - 1.5) * 1.2;
  const wordEmbeddings = Float32Array.from({ length: vocabSize * hidden }, gaussianish);
  // Special tokens ([CLS], [SEP], …) sit in every text; zero rows keep them from dominating the mean.
  wordEmbeddings.fill(0, 0, SPECIAL.length * hidden);
  const typeEmbeddings = Float32Array.from({ length: 2 * hidden }, () => gaussianish() * 0.1);
  const node = (op: string, inputs: string[], outputs: string[], attributes?: Record<string, number>): OnnxNode => ({
    op,
    inputs,
    outputs,
    ...(attributes ? { attributes } : {}),
  });
  return encodeOnnxModel(
    {
      name: 'tiny-bert',
      nodes: [
        node('Gather', ['word_embeddings', 'input_ids'], ['words'], { axis: 0 }),
        node('Gather', ['type_embeddings', 'token_type_ids'], ['types'], { axis: 0 }),
        node('Add', ['words', 'types'], ['summed']),
        node('Tanh', ['summed'], ['activated']),
        node('Cast', ['attention_mask'], ['mask_float'], { to: OnnxType.FLOAT }),
        node('Unsqueeze', ['mask_float', 'last_axis'], ['mask_3d']),
        node('Mul', ['activated', 'mask_3d'], ['last_hidden_state']),
      ],
      initializers: [
        { name: 'word_embeddings', type: OnnxType.FLOAT, dims: [vocabSize, hidden], data: wordEmbeddings },
        { name: 'type_embeddings', type: OnnxType.FLOAT, dims: [2, hidden], data: typeEmbeddings },
        { name: 'last_axis', type: OnnxType.INT64, dims: [1], data: BigInt64Array.of(-1n) },
      ],
      inputs: ['input_ids', 'attention_mask', 'token_type_ids'].map((name) => ({ name, type: OnnxType.INT64, dims: ['batch', 'sequence'] })),
      outputs: [{ name: 'last_hidden_state', type: OnnxType.FLOAT, dims: ['batch', 'sequence', hidden] }],
    },
    { opset: 13, producer: 'skill-search make-tiny-model' },
  ).model;
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
  /** The tokenizer's `model_max_length`. @default 512 */
  readonly maxLength?: number;
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
    JSON.stringify({
      tokenizer_class: 'BertTokenizer',
      do_lower_case: true,
      model_max_length: options.maxLength ?? 512,
      cls_token: '[CLS]',
      sep_token: '[SEP]',
      pad_token: '[PAD]',
      unk_token: '[UNK]',
      mask_token: '[MASK]',
    }),
  );
  writeFileSync(
    join(target, 'config.json'),
    JSON.stringify({
      model_type: 'bert',
      architectures: ['BertModel'],
      hidden_size: hidden,
      vocab_size: vocab.length,
      max_position_embeddings: 512,
      type_vocab_size: 2,
      pad_token_id: 0,
    }),
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
