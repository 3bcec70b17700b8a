/**
 * The built-in English word lists. Both are matched on lower-cased words.
 *
 * STOP_WORDS may not start or end a phrase (a few connectors may sit inside one: "serialization
 * and deserialization") and are never keywords on their own. They are function words, the
 * verbs and adverbs that documentation wraps around every term ("use", "see", "learn"), and
 * the words documentation uses for its own structure ("example", "following", "overview",
 * "note"). Without them "use source generation" or "complete program example" would become
 * keywords of their own.
 *
 * COMMON_WORDS are frequent general English words. They can be keywords, but at a penalty
 * (see extract.ts): "value", "type" or "code" say little about what a topic is about.
 * They are compared by Porter stem, so "examples" and "exampled" count as "example".
 */

export const STOP_WORDS: ReadonlySet<string> = new Set(
  `
a about above after again against all almost along already also although always am among an
and another any anybody anyone anything anyway anywhere are aren't around as at away be
became because become becomes been before behind being below beside besides between beyond
both but by can can't cannot could couldn't did didn't do does doesn't doing don't done down
during each eg either else enough etc even ever every everyone everything except few for
from further get gets getting give given gives go goes going got had hadn't has hasn't have
haven't having he her here hers herself him himself his how however i ie if in instead into
is isn't it it's its itself just last learn least less let lets like likely many may maybe me
might more most mostly much must my myself near need needed needs neither never no nobody
none nor not nothing now of off often on once one ones only onto or other others otherwise
our ours ourselves out over own per perhaps please quite rather really same see seen sees
shall she should shouldn't show shown shows since so some somebody someone something
sometimes somewhat still such than that that's the their theirs them themselves then there
there's these they they're thing things this those though through throughout thus to
together too toward towards under unless unlike until up upon us use used uses using usually
very via want wants was wasn't way we well were weren't what what's whatever when whenever
where whereas wherever whether which while who whoever whom whose why will with within
without won't would wouldn't yes yet you you'd you'll you're you've your yours yourself
yourselves
article articles example examples following preceding overview introduction section sections
note notes tip tips
`
    .trim()
    .split(/\s+/),
);

export const COMMON_WORDS: readonly string[] = `
ability able accept access account act action active actual add added addition additional
address advantage affect age ago agree allow allowed alone alternative amount answer appear
apply approach area ask available avoid back bad base based basic begin beginning behavior
behaviour best better big bit body book bottom box break bring build built call called care
carry case cause center certain chance change check child choice choose clear close code come
common complete consider contain content continue control copy correct cost course cover create
current cut date day deal decide default define describe detail details develop difference
different direct document easy effect effort enable enabled end ensure enter entire error event
exist expect experience explain fact fail fall false far fast feature features feel field file
fill final find fine first fit follow form found free full general good great group grow guide
half hand handle happen hard head help high hold home hour idea important include included
including increase indicate information input inside instance issue item keep kind know known
large late later lead leave left level life light limit line list little live long look lot low
main make making manage mark matter mean means meet member message method middle mind miss mode
model move name new next notice number object offer old open operation option order original
output page part particular pass past path people perform person place plan point possible
power prefer prepare present previous problem process produce program provide put question
quick quickly read ready real reason receive recent record reduce refer reference related
release remain remember remove replace report require required result return right room rule
run running safe say second select send sense separate serve service set several short side
sign simple single size small sort source space specific specify standard start state step stop
store string study subject support sure system table take talk tell term test text time top
true try turn type typical understand unit usual value version view wait walk watch whole wide
word work world write wrong year
`
  .trim()
  .split(/\s+/);
