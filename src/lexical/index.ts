export { LexicalIndex } from './lexical-index.js';
export type { FieldBoosts, GroupedTerms, LexicalMatch, LexicalSearchOptions } from './lexical-index.js';
export { bodyText, BODY_TEXT_CAP } from './body-text.js';
export { tokenize, splitWords } from './tokenize.js';
export { STOP_WORDS } from './stop-words.js';
export { stem } from './stem.js';
export { LEXICAL_FORMAT_VERSION } from './lexical-index.js';
export { lexicalEntry, lexicalKey } from './lexical-entry.js';
export type { LexicalEntry } from './lexical-entry.js';
