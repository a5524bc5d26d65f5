import { describe, expect, it } from 'vitest';
import { boundaryHits, boundaryOf, parseBoundary } from '../../src/search/boundaries.js';
import { tokenize } from '../../src/lexical/tokenize.js';

const skill = (name: string, description: string, body = '', whenToUse?: string) => ({
  name,
  description,
  body,
  ...(whenToUse === undefined ? {} : { whenToUse }),
});
const terms = (text: string): Set<string> => new Set(tokenize(text));

describe('parseBoundary', () => {
  it('takes the words only a "not for" clause uses, and the alternatives it names', () => {
    const boundary = parseBoundary(
      skill(
        'qutip',
        'Quantum physics simulation of open quantum systems. NOT for circuit-based quantum computing—use qiskit, cirq, or pennylane for quantum algorithms.',
      ),
    );
    expect([...boundary.terms]).toEqual(expect.arrayContaining(tokenize('circuit algorithms')));
    // "quantum" is also what the skill is for: it stays positive evidence.
    expect(boundary.terms.has('quantum')).toBe(false);
    expect(boundary.instead).toEqual(['qiskit', 'cirq', 'pennylane']);
  });

  it('reads "For X, use Y instead" and "do not use for" in the description and whenToUse', () => {
    const image = parseBoundary(skill('generate-image', 'Generate images with AI. For flowcharts and circuits, use the scientific-schematics skill instead.'));
    expect(image.terms).toEqual(terms('flowcharts circuits'));
    expect(image.instead).toEqual(['scientific-schematics']);
    const git = parseBoundary(skill('git-cleanup', 'Cleans up local git branches.', '', 'Do not use for remote branches.'));
    expect(git.terms).toEqual(terms('remote'));
  });

  it('takes a "When NOT to Use" body section up to the next heading of its level, and ignores code', () => {
    const body = [
      '# Fuzzing',
      'Find crashes in parsers.',
      '## When NOT to Use',
      '- Kernel drivers',
      '```',
      'not for this code line',
      '```',
      '### Details',
      '- Embedded firmware',
      '## Usage',
      'Run the harness on kernel images too.',
    ].join('\n');
    const boundary = parseBoundary(skill('fuzz', 'A fuzzing skill.', body));
    // "kernel" is used positively later in the body, "driver" and "firmware" are not.
    expect(boundary.terms).toEqual(terms('drivers embedded firmware'));
  });

  it('finds nothing in a skill that draws no boundary', () => {
    expect(parseBoundary(skill('pdf', 'Extract text and tables from PDF files.', '# PDF\nUse pdfplumber.')).terms.size).toBe(0);
  });
});

describe('boundaryOf and boundaryHits', () => {
  it('remembers each skill object and counts the query terms on its boundary', () => {
    const text = { ...skill('diffdock', 'Molecular docking of ligands. Not for affinity prediction.'), id: 'diffdock' } as never;
    const first = boundaryOf(text);
    expect(boundaryOf(text)).toBe(first);
    expect(boundaryHits(first, terms('predict the binding affinity'))).toBe(1);
    expect(boundaryHits(first, terms('dock this ligand'))).toBe(0);
  });
});
