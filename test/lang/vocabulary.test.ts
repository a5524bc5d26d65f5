import { describe, expect, it } from 'vitest';
import { translate } from '../../src/lang/translate.js';
import { CatalogueVocabulary } from '../../src/lang/vocabulary.js';
import { smallDictionary } from './small-dictionary.js';

const CATALOGUE = [
  'secrets-management\nStore the access token of a CI pipeline in a vault',
  'factory-robots\nProgram robots on an assembly line',
  'pipeline-design\nDesign a deployment pipeline with approval gates',
];

describe('CatalogueVocabulary', () => {
  const vocabulary = new CatalogueVocabulary(CATALOGUE);

  it('finds the skills that use every search term of a gloss', () => {
    expect(vocabulary.skillsOf('pipeline')).toEqual([0, 2]);
    expect(vocabulary.skillsOf('assembly line')).toEqual([1]);
    expect(vocabulary.skillsOf('access pipeline')).toEqual([0]);
    expect(vocabulary.skillsOf('decree')).toEqual([]);
    expect(vocabulary.skillsOf('the of')).toEqual([]);
  });

  it("ranks a word's glosses by how much their skills share the other words' and drops those no skill uses", () => {
    const chosen = vocabulary.choose([{ glosses: ['assembly line', 'pipeline'] }, { glosses: ['decree', 'token'] }]);
    expect(chosen).toEqual([['pipeline', 'assembly line'], ['token']]);
  });

  it("keeps the dictionary's order when no other word's skills overlap (no evidence against it)", () => {
    expect(vocabulary.choose([{ glosses: ['decree', 'assembly line', 'pipeline', 'token'] }])).toEqual([['decree', 'assembly line', 'pipeline']]);
  });

  it("keeps the dictionary's first glosses when the catalogue uses none, and fixed words as they are", () => {
    const chosen = vocabulary.choose([{ glosses: ['decree', 'edict', 'order', 'command'] }, { glosses: ['Vault', 'approve'], fixed: true }]);
    expect(chosen).toEqual([
      ['decree', 'edict', 'order'],
      ['Vault', 'approve'],
    ]);
  });
});

describe('translate with a catalogue', () => {
  const dictionary = smallDictionary();

  it("searches each word with the sense the catalogue and the request's other words share", () => {
    expect(translate('流水线的令牌', dictionary).dense).toBe('assembly line decree');
    const { dense, lexical } = translate('流水线的令牌', dictionary, { vocabulary: new CatalogueVocabulary(CATALOGUE) });
    expect(dense).toBe('pipeline token');
    expect(lexical).toBe('pipeline assembly line token');
  });

  it('finds the catalogue term two glosses spell as one word, the most specific of several, never from short parts', () => {
    const catalogue = new CatalogueVocabulary(['a\nkeyword search and a flowchart', 'b\nkeyword lists', 'c\nkeyboard input']);
    expect(catalogue.compound(['key', 'main'], ['word', 'board'])).toBe('keyboard');
    expect(catalogue.compound(['key'], ['word'])).toBe('keyword');
    expect(catalogue.compound(['flow chart'])).toBe('flowchart');
    expect(catalogue.compound(['in'], ['put'])).toBeUndefined();
    expect(catalogue.compound(['heat'], ['map'])).toBeUndefined();
  });
});
