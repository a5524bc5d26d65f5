/** English function words dropped from indexed text and queries (else BM25 rewards descriptions that repeat "you" or "this"); domain words such as "test" or "new" stay. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again all also am an and any are as at be because been before being below ' +
    'between both but by can could did do does doing done down during each either else etc ever few ' +
    'for from further get gets got had has have having he her here hers him his how i if in into is ' +
    'it its itself just let lets like me might more most much must my myself no nor not now of off ' +
    'on once only or other our ours out over own please same she should so some such than that the ' +
    'their theirs them then there these they this those through to too under until up upon us very ' +
    'want wants was we were what when where which while who whom why will with would yes yet you ' +
    'your yours yourself thanks thank hi hello hey ok okay sure something anything someone really ' +
    'use used uses using need needs help helps ' +
    "i'm i've i'd it's don't can't won't what's let's"
  ).split(' '),
);
