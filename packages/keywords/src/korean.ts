/**
 * Korean writes a noun and its particles as one spaced word (서버는, 서버를, 서버에서: "the
 * server" as topic, object, place), and a noun made a verb with 하다 / 되다 as one word too
 * (설정합니다, 설정하려면, 설정된: "configure"). Each form was a keyword of its own, so a topic
 * about servers listed 서버는 and 서버를 and ranked neither as high as 서버. With no dictionary
 * (no download: Lucene's Nori ships one of 200 MB), the commonest endings are taken off by rule.
 *
 * Which particle follows a noun depends on its last syllable: 이 은 을 과 으로 after a final
 * consonant (batchim), 가 는 를 와 로 after a vowel (로 also after ㄹ). Stripping only where the
 * grammar allows it keeps the loanwords that end in 이 or 가 whole: 디스플레이 and 게이트웨이
 * end in 레 and 웨, which have no final consonant, so their 이 is not a particle.
 * Endings that nouns also end in are left alone: 의 (재정의, "override"), 도 (해상도,
 * "resolution"), 만. What remains is at least two syllables (권한, "permission", keeps its 한).
 */

const SYLLABLE_FIRST = 0xac00;
const SYLLABLE_LAST = 0xd7a3;
/** Final consonant (jongseong) index of ㄹ in a precomposed syllable. */
const RIEUL = 8;

/** Endings that follow any last syllable, longest first where one ends another. */
const FREE = [
  '에서부터', '에서는', '에서도', '에게서', '에게는', '으로부터', '로부터', '까지는', '까지도', '부터는', '에서', '에게', '한테', '까지', '부터', '처럼', '에는', '에도', '에', '께서',
  // 하다 / 되다 verbs of a noun: what docs write most ("설정합니다", "설정하려면", "설정된").
  '하십시오', '되었습니다', '했습니다', '하였습니다', '합니다', '됩니다', '하세요', '하려면', '되려면', '하므로', '되므로', '하도록', '되도록', '하는', '되는', '하고', '되고', '하면', '되면', '하여', '되어', '해서', '돼서', '하기', '되기', '해야', '돼야', '하지', '되지', '한다', '된다', '한', '된', '할', '될', '함', '됨',
];
/** Particles after a final consonant. */
const AFTER_CONSONANT = ['으로는', '으로도', '으로서', '으로써', '이라는', '이라고', '으로', '이', '은', '을'];
/** Particles after a vowel (로 and its compounds also after ㄹ). */
const AFTER_VOWEL = ['로서', '로써', '라는', '라고', '로는', '로도', '로', '가', '는', '를', '와'];
const AFTER_RIEUL = new Set(['로서', '로써', '로는', '로도', '로']);

/**
 * Nouns whose last syllables are an ending of the lists above (경로 "path" ends in 로, 결과
 * "result" in 과, 권한 in 한). Two syllables stay whole anyway; these keep them whole at the end of
 * a compound written as one word (절대경로 "absolute path", 사용자권한), while 경로를 still gives 경로.
 */
const NOUNS_ENDING_LIKE_A_PARTICLE = ['경로', '결과', '효과', '통과', '초과', '추가', '평가', '권한', '제한', '역할', '포함', '회로', '도로', '가로', '세로', '길이', '높이', '깊이', '넓이'];

const ENDINGS = [...FREE.map((e) => [e, 0] as const), ...AFTER_CONSONANT.map((e) => [e, 1] as const), ...AFTER_VOWEL.map((e) => [e, 2] as const)].sort((a, b) => b[0].length - a[0].length);

function isSyllable(c: number): boolean {
  return c >= SYLLABLE_FIRST && c <= SYLLABLE_LAST;
}

/** Whether `word` ends in a Hangul syllable: the only words stemKorean changes. */
export function endsInHangul(word: string): boolean {
  return word.length > 0 && isSyllable(word.charCodeAt(word.length - 1));
}

/**
 * `word` (lower-cased) without the one particle or 하다 / 되다 ending it ends with, the longest
 * that the stem's last syllable allows, when at least two syllables stay before it (or one
 * character of another script: `api를` is `api`). Any other word is returned as it is.
 */
export function stemKorean(word: string): string {
  if (!endsInHangul(word)) return word;
  // An ending the last syllable refuses is not cut shorter (서버으로 is not 서버으 + 로).
  let refused = '';
  for (const [ending, rule] of ENDINGS) {
    if (!word.endsWith(ending) || refused.endsWith(ending)) continue;
    if (NOUNS_ENDING_LIKE_A_PARTICLE.some((noun) => noun.length > ending.length && word.endsWith(noun))) continue;
    const stem = word.slice(0, word.length - ending.length);
    if (!longEnough(stem)) continue;
    const last = stem.charCodeAt(stem.length - 1);
    // After a letter of another script the sound is unknown: any particle may follow (API를, API가).
    if (rule !== 0 && isSyllable(last)) {
      const final = (last - SYLLABLE_FIRST) % 28;
      const allowed = rule === 1 ? final !== 0 && !(final === RIEUL && ending.startsWith('으로')) : final === 0 || (final === RIEUL && AFTER_RIEUL.has(ending));
      if (!allowed) {
        refused ||= ending;
        continue;
      }
    }
    return stem;
  }
  return word;
}

/** Two syllables, or any stem whose last character is not a syllable (a Latin name, digits). */
function longEnough(stem: string): boolean {
  if (stem.length === 0) return false;
  if (!isSyllable(stem.charCodeAt(stem.length - 1))) return /[\p{L}\p{N}]$/u.test(stem);
  return stem.length >= 2;
}

/**
 * Korean function words, each a keyword of nothing (after stemKorean): conjunctions, pronouns,
 * the bound nouns of grammar (것 "thing", 수 "can", 등 "etc."), and the words documentation
 * wraps around its terms, as STOP_WORDS lists for English ("use", "example", "note").
 */
export const KOREAN_STOP_WORDS: ReadonlySet<string> = new Set(
  `
및 또는 그리고 그러나 하지만 그러면 따라서 또한 즉 이 그 저 것 수 등 때 위해 통해 대한 대해 관한 경우 다음 이전 아래 위 예 예제 예시 참고 참조 사용
있습니다 없습니다 있는 없는 있다 없다 있으며 입니다 이다 이런 그런 저런 어떤 모든 각 같은 같이 다른 여러 이제 먼저 그냥 매우 더 가장 또 새
`
    .trim()
    .split(/\s+/),
);
