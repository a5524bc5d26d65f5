/**
 * A light English suffix stripper for lowercase ASCII words ("crashes" meets "crash", "failing"
 * meets "fails"): it only has to map a word and its common inflections to one key, on both sides.
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
