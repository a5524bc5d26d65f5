/**
 * Which English words of a CC-CEDICT entry stand for a Chinese word in a search: dictionary order, computing senses
 * moved up behind the first; notes (variants, surnames, classifiers), parentheticals and the infinitive `to` dropped.
 */

/** Glosses a word is searched with: more add recall for one word and drown the others. */
export const MAX_GLOSSES = 3;
/** Glosses kept per headword: beyond {@link MAX_GLOSSES}, candidates a catalogue may prefer (`vocabulary.ts`). */
export const CANDIDATE_GLOSSES = 8;

/** A sense that is a note about the word, not a meaning of it. */
const NOTE =
  /^(?:(?:old |Japanese |archaic |ancient )?variant of|see |see also|used in|abbr\.|also written|also pr\.|erhua variant|surname|classifier|CL:|pr\. |\(Tw\)|Taiwan pr\.|\(old\)|\(archaic\)|\(dialect\)|\(literary\)|\(slang\)|\(Internet slang\)|\(vulgar\)|\(Cantonese\)|\(loanword)/i;
const TECHNICAL = /^\((?:computing|software|programming|Internet|network|math\.|mathematics|statistics)\)/i;
const PARENTHETICAL = /\([^()]*\)|\[[^\]]*\]|\{[^}]*\}/g;
/** Markers and filler a search term should not carry. */
const FILLER = /\b(?:sb|sth|sb's|sth's|one's|oneself|etc|lit\.|fig\.|i\.e\.|e\.g\.)(?=\s|$|[,;.])/gi;

/** One sense cleaned to plain search words, or undefined when nothing is left. */
export function cleanGloss(sense: string): string | undefined {
  if (NOTE.test(sense.trim())) return undefined;
  let text = sense.replace(PARENTHETICAL, ' ');
  // Nested or unbalanced brackets leave pieces behind; they are never search words.
  text = text.replace(/[()[\]{}|\t\n]/g, ' ').replace(FILLER, ' ');
  text = text.replace(/^\s*(?:to be|to)\s+/i, '').replace(/[.,;:!?"“”]+/g, ' ');
  text = text.replace(/\s+/g, ' ').trim();
  // Affixes (`-ization`) and long explanations are not words a skill would contain.
  if (text === '' || /[\p{Script=Han}]/u.test(text) || /^-|-$/.test(text) || text.length > 40) return undefined;
  return text;
}

/** A headword's glosses from its entries (one per reading): proper nouns last, the richest entry's first sense leads, computing senses next. */
export function selectGlosses(entries: readonly { readonly pinyin: string; readonly senses: readonly string[] }[], limit: number = MAX_GLOSSES): string[] {
  const ordered = entries
    .map((entry, order) => ({ entry, order, proper: /^[A-Z]/.test(entry.pinyin), size: entry.senses.length }))
    .sort((a, b) => Number(a.proper) - Number(b.proper) || b.size - a.size || a.order - b.order);
  const glosses: string[] = [];
  const technical: string[] = [];
  for (const { entry } of ordered) {
    // The first synonym of every sense before the second of any.
    const synonyms = entry.senses.map((item) => item.split(/;\s*/));
    const depth = Math.max(0, ...synonyms.map((list) => list.length));
    for (let i = 0; i < depth; i += 1) {
      for (const list of synonyms) {
        const sense = list[i];
        if (sense === undefined) continue;
        const clean = cleanGloss(sense);
        if (clean === undefined) continue;
        if (TECHNICAL.test(sense.trim())) technical.push(clean);
        else glosses.push(clean);
      }
    }
  }
  const out: string[] = [];
  for (const gloss of [...glosses.slice(0, 1), ...technical, ...glosses.slice(1)]) {
    if (!out.includes(gloss)) out.push(gloss);
    if (out.length === limit) break;
  }
  return out;
}

/** The CC-CEDICT `variant of 實|实[shi2]` pointer of a sense: the simplified target character(s). */
export function variantTarget(sense: string): string | undefined {
  const match = /^(?:old |Japanese |archaic )?variant of ([^|[\s]+)(?:\|([^[\s]+))?/.exec(sense.trim());
  if (match === null) return undefined;
  return match[2] ?? match[1];
}
