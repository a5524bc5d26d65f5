/** The encoders `model pull <id>` fetches and runs, from their model cards; docs/models.md's table mirrors this one (a test checks). */

/** How token vectors become one sentence vector. */
export type Pooling = 'mean' | 'cls';

export interface ModelPreset {
  /** What the user types: `--model <id>`, `model pull <id>`. */
  readonly id: string;
  /** Hugging Face repository holding a Transformers.js (ONNX) export. */
  readonly repo: string;
  /** Branch, tag or commit fetched. @default 'main' */
  readonly revision: string;
  /** The ONNX graph to fetch, relative to the repo root (the quantized one where it exists). */
  readonly onnxFile: string;
  /** Every file fetched, `onnxFile` included; the folder is laid out as in the repo. */
  readonly files: readonly string[];
  readonly pooling: Pooling;
  /** Whether the model card L2-normalises its vectors (skill-search always normalises; recorded for the table). */
  readonly normalize: boolean;
  /** Tokens per text the model was trained for; longer texts are truncated to this. */
  readonly maxTokens: number;
  /** Put before every query (the search message). */
  readonly queryPrefix: string;
  /** Put before every passage (the indexed skill text). */
  readonly passagePrefix: string;
  readonly dimensions: number;
  /** Texts in different languages land near each other (queries in one language find skills written in another). */
  readonly multilingual: boolean;
  /** Approximate download, for `model list` (the hub's file listing, rounded). */
  readonly downloadMb: number;
  /** Where the row's facts were read. */
  readonly source: string;
}

const TRANSFORMERS_JS_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json'] as const;

/** The fields a row may leave out. */
type Defaulted = 'onnxFile' | 'queryPrefix' | 'passagePrefix' | 'multilingual';

/** A row with the defaults filled in: the quantized ONNX file from `main`, no prompts, English only. */
function preset(row: Omit<ModelPreset, 'revision' | 'files' | Defaulted> & Partial<Pick<ModelPreset, Defaulted>>): ModelPreset {
  const onnxFile = row.onnxFile ?? 'onnx/model_quantized.onnx';
  const defaults = { queryPrefix: '', passagePrefix: '', multilingual: false };
  return Object.freeze({ ...defaults, ...row, revision: 'main', onnxFile, files: Object.freeze([...TRANSFORMERS_JS_FILES, onnxFile]) });
}

export const MODEL_PRESETS: readonly ModelPreset[] = Object.freeze([
  preset({
    id: 'bge-small-en-v1.5',
    repo: 'Xenova/bge-small-en-v1.5',
    pooling: 'cls',
    normalize: true,
    maxTokens: 512,
    queryPrefix: 'Represent this sentence for searching relevant passages: ',
    dimensions: 384,
    downloadMb: 35,
    source: 'BAAI/bge-small-en-v1.5 model card',
  }),
  preset({
    id: 'all-MiniLM-L6-v2',
    repo: 'Xenova/all-MiniLM-L6-v2',
    pooling: 'mean',
    normalize: true,
    maxTokens: 256,
    dimensions: 384,
    downloadMb: 24,
    source: 'sentence-transformers/all-MiniLM-L6-v2 model card',
  }),
  preset({
    id: 'gte-small',
    repo: 'Xenova/gte-small',
    pooling: 'mean',
    normalize: true,
    maxTokens: 512,
    dimensions: 384,
    downloadMb: 35,
    source: 'thenlper/gte-small model card',
  }),
  preset({
    id: 'multilingual-e5-small',
    repo: 'Xenova/multilingual-e5-small',
    pooling: 'mean',
    normalize: true,
    maxTokens: 512,
    queryPrefix: 'query: ',
    passagePrefix: 'passage: ',
    dimensions: 384,
    multilingual: true,
    downloadMb: 136,
    source: 'intfloat/multilingual-e5-small model card',
  }),
  preset({
    id: 'paraphrase-multilingual-MiniLM-L12-v2',
    repo: 'Xenova/paraphrase-multilingual-MiniLM-L12-v2',
    pooling: 'mean',
    normalize: false,
    maxTokens: 128,
    dimensions: 384,
    multilingual: true,
    downloadMb: 136,
    source: 'sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2 model card',
  }),
]);

export function findPreset(id: string): ModelPreset | undefined {
  return MODEL_PRESETS.find((row) => row.id === id);
}

export function presetIds(): string[] {
  return MODEL_PRESETS.map((row) => row.id);
}
