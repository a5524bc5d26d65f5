import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MODEL_PRESETS, findPreset, type ModelPreset } from '../../src/model-store/presets.js';

const README = readFileSync(new URL('../../docs/models.md', import.meta.url), 'utf8');

function presetRow(row: ModelPreset): string {
  const prefix = (text: string): string => (text === '' ? '—' : `\`${JSON.stringify(text).slice(1, -1)}\``);
  return `| \`${row.id}\` | [${row.repo}](https://huggingface.co/${row.repo}) | \`${row.onnxFile}\` | ${row.pooling} | ${row.normalize ? 'yes' : 'no'} | ${row.maxTokens} | ${prefix(row.queryPrefix)} | ${prefix(row.passagePrefix)} | ${row.dimensions} | ${row.multilingual ? 'yes' : 'no'} | ≈ ${row.downloadMb} MB |`;
}

describe('model presets', () => {
  it('are mirrored row for row, in order, in the docs/models.md table', () => {
    const table = README.slice(README.indexOf('<!-- presets:start'), README.indexOf('<!-- presets:end -->'));
    const rows = table.split('\n').filter((line) => line.startsWith('| `'));
    expect(rows).toEqual(MODEL_PRESETS.map(presetRow));
  });

  it('fetch the Transformers.js files plus their ONNX graph, quantized', () => {
    for (const row of MODEL_PRESETS) {
      expect(row.files).toEqual(['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx']);
      expect(row.revision).toBe('main');
    }
  });

  it('prompt the asymmetric models as their cards say', () => {
    expect(findPreset('bge-small-en-v1.5')).toMatchObject({
      pooling: 'cls',
      queryPrefix: 'Represent this sentence for searching relevant passages: ',
      passagePrefix: '',
    });
    expect(findPreset('multilingual-e5-small')).toMatchObject({ pooling: 'mean', queryPrefix: 'query: ', passagePrefix: 'passage: ', multilingual: true });
    expect(findPreset('nope')).toBeUndefined();
  });
});
