export { LexicalIndex, LEXICAL_BOOST } from './lexical-index.js';
export type { LexicalMatch } from './lexical-index.js';
export { tokenize, splitWords } from './tokenize.js';
export { STOP_WORDS } from './stop-words.js';
export { stem } from './stem.js';
