/**
 * A light English suffix stripper for lowercase ASCII words ("crashes" meets "crash", "failing"
 * meets "fails"): it only has to map a word and its common inflections to one key, on both sides.
 */
const WORD = /^[a-z]+$/;
const DOUBLE_END = /([bdfgkmnprt])\1$/;

/** `word` without its inflection (-s, -es, -ies, -ing, -ed), as {@link stem} takes it off. */
function withoutInflection(word: string): string {
  let w = word;
  if (w.endsWith('ies') && w.length > 5) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (/(?:ch|sh|x|z)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.endsWith('ing') && w.length > 6) w = w.slice(0, -3);
  else if (w.endsWith('ed') && w.length > 5) w = w.slice(0, -2);
  return w;
}

export function stem(word: string): string {
  if (word.length <= 4 || !WORD.test(word)) return word;
  let w = withoutInflection(word);
  if (DOUBLE_END.test(w)) w = w.slice(0, -1);
  if (w.endsWith('e') && w.length > 4) w = w.slice(0, -1);
  return w;
}

/**
 * Whether two words with one stem are the same word inflected ("parse", "parsing") rather than two
 * words the stemmer's final-e rule joins ("strip", "Stripe"; "shape", the `shap` library): one of
 * them is the other, or carries an inflection.
 */
export function sameWord(a: string, b: string): boolean {
  const inflected = (w: string): boolean => w.length > 4 && WORD.test(w) && withoutInflection(w) !== w;
  return a === b || inflected(a) || inflected(b);
}
