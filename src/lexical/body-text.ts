/**
 * The searchable words of a SKILL.md body: headings, list items and the first paragraph of every
 * section, up to a cap. Code, HTML, tables, link targets and images are dropped: they hold markup
 * rather than the words users type, and would outweigh the prose in BM25's length normalisation.
 */

/** Characters of body text indexed per skill (about 250 words). */
const BODY_TEXT_CAP = 2000;

const FENCE = /^\s*(```|~~~)/;
const HEADING = /^\s{0,3}#{1,6}\s+(.*)$/;
const LIST_ITEM = /^\s*(?:[-*+]|\d+[.)])\s+(.*)$/;
const TABLE_ROW = /^\s*\|/;

/** Markdown inline syntax → its words: link text kept, targets, images and HTML dropped. */
function inline(text: string): string {
  return text
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, ' ')
    .replace(/https?:\/\/\S+/g, ' ')
    .replace(/[*_`]+/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

export function bodyText(body: string, cap = BODY_TEXT_CAP): string {
  if (body === '') return '';
  const out: string[] = [];
  let length = 0;
  let inFence = false;
  let inComment = false;
  /** The current section's first paragraph is still being read. */
  let firstParagraph = true;
  let paragraphLines = 0;
  const push = (text: string): boolean => {
    const clean = inline(text);
    if (clean === '') return true;
    out.push(clean);
    length += clean.length + 1;
    return length < cap;
  };
  for (const line of body.split(/\r?\n/)) {
    if (FENCE.test(line)) {
      inFence = !inFence;
      continue;
    }
    if (inFence) continue;
    if (inComment || line.includes('<!--')) {
      inComment = !line.includes('-->');
      continue;
    }
    if (TABLE_ROW.test(line)) continue;
    const heading = HEADING.exec(line);
    if (heading) {
      firstParagraph = true;
      paragraphLines = 0;
      if (!push(heading[1]!)) break;
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      if (!push(item[1]!)) break;
      continue;
    }
    if (line.trim() === '') {
      if (paragraphLines > 0) firstParagraph = false;
      continue;
    }
    if (firstParagraph) {
      paragraphLines += 1;
      if (!push(line)) break;
    }
  }
  const text = out.join('\n');
  return text.length > cap ? text.slice(0, cap) : text;
}
