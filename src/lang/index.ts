// Cross-lingual retrieval: language detection and dictionary translation in front of the rankers.
export { CrossLingual, type CrossLingualOptions, type RoutedQuery, type SkillGlosses } from './cross-lingual.js';
export { detectLanguage, LANGUAGES, type Language } from './detect.js';
export { Dictionary, loadDictionary, defaultDictionaryDir, DICTIONARY_FORMAT } from './dictionary.js';
export { translate, segmentHan, type Translation, type TranslateOptions } from './translate.js';
export { selectGlosses, cleanGloss, MAX_GLOSSES } from './glosses.js';
export { LoanwordMatcher, romanize, englishSkeleton, romajiSkeleton } from './loanwords.js';
export { CatalogueVocabulary } from './vocabulary.js';
