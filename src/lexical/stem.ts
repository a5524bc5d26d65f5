/**
 * A deliberately light English suffix stripper, applied to lowercase ASCII words only, so
 * that "crashes" meets "crash", "failing" meets "fails" and "images" meets "image". It is
 * not a linguistic stemmer: it only has to map a word and its common inflections to the
 * same key, on both the indexed and the query side. Identifiers (`pdf-extract`), short words,
 * digits and non-Latin scripts are left alone.
 */
const WORD = /^[a-z]+$/;
const DOUBLE_END = /([bdfgkmnprt])\1$/;

export function stem(word: string): string {
  if (word.length <= 4 || !WORD.test(word)) return word;
  let w = word;
  if (w.endsWith('ies') && w.length > 5) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (/(?:ch|sh|x|z)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.endsWith('ing') && w.length > 6) w = w.slice(0, -3);
  else if (w.endsWith('ed') && w.length > 5) w = w.slice(0, -2);
  if (DOUBLE_END.test(w)) w = w.slice(0, -1);
  if (w.endsWith('e') && w.length > 4) w = w.slice(0, -1);
  return w;
}
