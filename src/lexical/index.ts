export { LexicalIndex, LEXICAL_BOOST } from './lexical-index.js';
export type { GroupedTerms, LexicalMatch } from './lexical-index.js';
export { tokenize, splitWords } from './tokenize.js';
export { STOP_WORDS } from './stop-words.js';
export { stem } from './stem.js';
export { LEXICAL_FORMAT_VERSION } from './lexical-index.js';
export type { LexicalSnapshot } from './lexical-index.js';
export { LEXICAL_FILE, loadLexicalIndex, saveLexicalIndex } from './lexical-store.js';
export type { LexicalLoad } from './lexical-store.js';
