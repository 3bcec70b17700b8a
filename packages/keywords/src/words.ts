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
 * COMMON_WORDS are frequent general English words (and their Thai, Chinese and Japanese
 * translations, unspacedCommonWords). They can be keywords, but at a penalty
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
  .split(/\s+/)
  .concat(unspacedCommonWords());

/**
 * COMMON_WORDS of Thai, Chinese and Japanese: the same general nouns as the English ones
 * ("value", "type", "name", "file", "code", "text", "number", "time", "list"). Not stop words:
 * they start and end the compounds that are a page's terms (ค่าเริ่มต้น "default value",
 * ตั้งค่า "configure", 默认值, 既定値). But Intl.Segmenter cuts them out of every such compound
 * as words of their own, so a Thai page about its settings had ค่า ("value") as its second
 * keyword, counted once in each of ตั้งค่า, ค่าเริ่มต้น and ค่าของพอร์ต, where English counts
 * "value" at COMMON_PENALTY (s61 probe, helper 90).
 */
function unspacedCommonWords(): string[] {
  return `
ค่า ชนิด ประเภท ชื่อ ไฟล์ โค้ด ข้อความ ตัวเลข เวลา รายการ
值 类型 名称 名字 文件 代码 文本 数字 时间 列表
値 型 種類 名前 ファイル コード テキスト 数値 時間 リスト
`
    .trim()
    .split(/\s+/);
}

/**
 * Function words of Khmer, Lao and Myanmar, as Intl.Segmenter cuts them out (those scripts write
 * no spaces between words either): a Khmer page about a server had នេះ ("this") and នៅក្នុង
 * ("in") as keywords, a Lao one ຢູ່ ("at, is in"), ແລະ ("and"), ນີ້ ("this") and the phrase ຢູ່ໃນ
 * ("is in"), a Myanmar one the particles သည် (subject, sentence end), ကို (object), ပါ (polite)
 * and တွင် ("at, in") (helper-91 probe). Postpositions and case particles, conjunctions,
 * demonstratives, the copulas and "there is", "can", "must", "please", "you"; the Lao list
 * follows the Thai one, which it is close kin to. Left out where a content word is written the
 * same: Khmer តែ ("only", also "tea"), the Myanmar nominalizer မှု (ပြင်ဆင်မှုဖိုင် "configuration
 * file" is a term), Lao ມາ ("come", a syllable of loanwords ICU cuts apart). Lao ສຳລັບ is
 * listed as typed both with ຳ and with ໍ + າ.
 */
const KHMER_LAO_MYANMAR_STOP_WORDS = `
នៅ នៅក្នុង ក្នុង លើ នេះ នោះ និង ឬ ហើយ ដែល ជា គឺ គឺជា មាន របស់ ពី ទៅ ដើម្បី ក៏ ប៉ុន្តែ បាន នឹង ត្រូវ ត្រូវតែ អាច ដោយ សម្រាប់ ជាមួយ
ទេ មិន ប្រសិនបើ បើ សូម អ្នក ការ ទាំង ទាំងអស់ ខ្លះ ទៀត
ແລະ ຂອງ ທີ່ ໃນ ການ ຄວາມ ເປັນ ແມ່ນ ໄດ້ ມີ ໃຫ້ ບໍ່ ຈະ ວ່າ ກັບ ແຕ່ ຫຼື ຫລື ຈາກ ໂດຍ ຊຶ່ງ ນີ້ ນັ້ນ ເພື່ອ ກໍ່ ກໍ ຢູ່ ຖ້າ ຄື ຕ້ອງ ຍັງ ແລ້ວ ເມື່ອ ສາມາດ
ທ່ານ ສຳລັບ ສໍາລັບ
သည် ကို တွင် မှာ နှင့် နဲ့ သို့ မှ ပါ ရှိ ဖြစ် ဖြစ်သည် ရန် ပြီး ဤ ထို ဒီ များ တို့ သော သည့် မည် လည်း သို့မဟုတ် နိုင် ထဲ ထက်
`;

/**
 * Words that are never keywords in the scripts written without spaces (see UNSPACED in
 * scan.ts), where Intl.Segmenter cuts function words out as words of their own: a word of
 * Hiragana only is grammar (を, が, の, します, すると, から), and these are the commonest others,
 * in Chinese (的, 是, 在, 可以), Japanese, Thai, Khmer, Lao and Myanmar. Lower-cased text, as STOP_WORDS.
 */
const UNSPACED_STOP_WORDS: ReadonlySet<string> = new Set(
  `
的 了 是 在 和 与 或 及 把 被 对 从 到 也 都 就 而 之 其 于 以 为 将 个 这 那 不 有 我 你 他 她 它 会 能 要 让 给 等 着 过 很 更 最 又 还
并 但 所 如 若 则 即 该 此 各 每 些 地 得 吗 呢 吧 啊 中 上 下 时 后 前 用 做 可 请 您 ๆ
一个 一些 一样 一般 之后 之前 也是 人们 什么 以及 以后 以前 但是 使用 例如 其中 其他 具有 内容 再次 出现 可以 可能 同时 否则
哪些 因为 因此 如何 如果 它们 对于 就是 已经 并且 我们 或者 所以 所有 所有的 接着 提供 支持 然后 然而 由于 而且 能够 自己
虽然 这个 这些 这是 这样 这种 那个 那些 那么 通过 还是 进行 需要 非常 首先 怎么 怎样 为了 为什么 不是 没有 还有 比如 以下 以上 方法
これ それ あれ この その あの ここ そこ こと もの ため よう など 場合 使用 方法 
และ ของ ที่ ใน การ เป็น ได้ มี ให้ ไม่ จะ ว่า กับ แต่ หรือ จาก โดย ซึ่ง นี้ นั้น เพื่อ ความ ก็ อยู่ ถ้า คือ ต้อง ยัง ไป มา แล้ว อย่าง
เมื่อ สามารถ ใช้ ทำ ตาม ถึง หาก เช่น วิธี
${KHMER_LAO_MYANMAR_STOP_WORDS}
`
    .trim()
    .split(/\s+/)
    .map((w) => w.normalize('NFC')),
);

const HIRAGANA_ONLY = /^[\p{sc=Hiragana}ー]+$/u;

/** Whether a lower-cased word of an unspaced script is a function word (UNSPACED_STOP_WORDS, or Hiragana only). */
export function isUnspacedStopWord(word: string): boolean {
  return UNSPACED_STOP_WORDS.has(word) || HIRAGANA_ONLY.test(word);
}

/**
 * Function words of Arabic, Persian, Hebrew, Hindi, Amharic, Tamil and Mongolian, which write
 * spaces between words (as English does) and so reach the phrase rules word by word, and
 * Tibetan's particles, each a syllable of its own between tshegs: without a list, an Arabic page
 * about a server had في ("in"), من ("from") and هذا ("this") as keywords, a Hindi one है ("is")
 * and का ("of"), a Hebrew one את (the object marker), a Persian one را and کنید, and phrases
 * began or ended with them ("सर्वर का", "فایل پیکربندی را"); an Amharic one ነው ("is"), እና ("and"),
 * ውስጥ ("in") and ይህ ("this"), a Tamil one உள்ளது ("is, exists") and வேண்டும் ("must"), a
 * traditional Mongolian one ᠨᠢ (topic), ᠡᠨᠡ ("this") and ᠪᠠᠶᠢᠨ᠎ᠠ ("is"), whose case endings
 * are written apart (ᠶᠢᠨ, ᠲᠤ), a Tibetan one ཀྱི (genitive), ནི (topic) and ཡོད ("there is")
 * (helper-91 probe). Prepositions, conjunctions,
 * pronouns, demonstratives, the copulas and auxiliaries, and the words documentation wraps
 * around its terms ("can", "must", "use", "example"), as STOP_WORDS has for English. No
 * stemming: the lists are looked up as written. (Arabic's article and Hebrew's one-letter
 * prefixes are taken off a word the document also writes without them, proclitics.ts; Amharic's
 * (የ, በ, ለ, ከ) stay on their words.) Tamil's sandhi forms of "this" and "that" are listed
 * (இந்தக் கோப்பு "this file"). Left out where a content word is written the same: Tamil விட
 * ("than", also "leave"), Tibetan དང ("and", also the first syllable of དང་པོ "first") and ལས
 * ("from", also "work", ལས་ཀ).
 */
const SCRIPT_STOP_WORDS_LIST = `
في من إلى الى على عن مع هذا هذه ذلك تلك هؤلاء التي الذي الذين اللذين اللتين اللواتي أن إن أنه أنها لأن كأن أو أم ثم لا ما لم لن قد
كان كانت يكون تكون كانوا هو هي هم هن أنت أنا نحن كل بين عند بعد قبل حتى إذا اذا كما أي أيضا أيضًا غير لكن ولكن بل فقط هناك هنا
حيث عندما إلا ليس ليست نحو لدى منذ خلال ضمن دون وفق حول فإن وهو وهي ومن وفي وعلى وإلى ومع كيف لماذا متى أين هل يمكن يمكنك يجب
يتم تم باستخدام استخدام مثال المثال مثل بعض جميع عدة لذلك لهذا هذان هاتان
و در به از که این آن را با برای است هست نیست هم یا تا بر اگر نیز ها های می نمی شود نمی‌شود می‌شود شده باشد بود بودن کنید کند
کنیم کرد کردن کرده دارد دارند داشت هر چه یک وی او ما شما آنها ایشان همه دیگر باید توان می‌توان میتوان خود اما ولی پس سپس چون
زیرا روی درباره بین بدون مانند همین همان استفاده مثال مثلا مثلاً چگونه چرا کجا کدام آیا
את של על עם אל כי אם או גם לא כל זה זו זאת הוא היא הם הן אני אתה את אנחנו יש אין מה מי כמו אבל רק עוד כבר אשר לפי בין אחרי לפני
בתוך תחת ידי כדי אותו אותה אותם אותן שלו שלה שלהם שלהן להיות היה היתה היו יהיה הזה הזאת הזו האלה אלה כך כאן שם לכן ניתן
יכול יכולה צריך צריכה באמצעות דוגמה לדוגמה איך למה מתי איפה האם
का की के को में से पर है हैं था थी थे हो होता होती होते होगा होगी होंगे और या भी तो ही यह वह ये वे इस उस इन उन इसे उसे इसका
उसका एक कि जो जब तक लिए साथ द्वारा नहीं न कर करें करने करना करता करती करते किया किए किसी कुछ सभी सब अपने अपना अपनी आप हम
मैं तुम कोई कैसे क्या क्यों कहाँ यदि अगर तथा एवं बाद पहले ऊपर नीचे उदाहरण उपयोग सकते सकता सकती चाहिए वाले वाला वाली
ነው ናቸው ነበር ነበሩ ነበረች እና ወይም ግን ደግሞ እንዲሁም ላይ ውስጥ ጋር ወደ ስለ እንደ እስከ በላይ ይህ ያ ይህን ያንን እነዚህ እነዚያ ሁሉ ሁሉም ብቻ በጣም
ስለዚህ ምክንያቱም እዚህ እዚያ ከዚያ በኋላ በፊት አለ አሉ የለም አለበት ይችላል ይችላሉ መሆን ሌላ ሌሎች
உள்ளது உள்ளன உள்ள இருக்கும் இருக்க இருந்து இருந்தது ஆகும் ஆக ஆகிய ஒரு ஓர் இது அது இவை அவை இந்த அந்த இந்தக் இந்தச் இந்தத் இந்தப்
அந்தக் அந்தச் அந்தத் அந்தப் மற்றும் அல்லது ஆனால் மேலும் என்று என்ற என்பது என்றால் எனவே பின்னர் இங்கு இங்கே அங்கு அங்கே என்ன எப்படி
ஏன் எந்த நீங்கள் நாம் நாங்கள் நான் அவர் அவர்கள் வேண்டும் முடியும் மட்டும் மட்டுமே பற்றி போன்ற போல மூலம் வரை மிகவும் இல்லை
ᠨᠢ ᠶᠢᠨ ᠤᠨ ᠦᠨ ᠶᠢ ᠳᠤ ᠲᠤ ᠳᠦ ᠲᠦ ᠡᠴᠡ ᠠᠴᠠ ᠪᠠᠷ ᠪᠡᠷ ᠢᠶᠠᠷ ᠢᠶᠡᠷ ᠲᠠᠢ ᠲᠡᠢ ᠪᠠ ᠪᠤᠶᠤ ᠡᠨᠡ ᠲᠡᠷᠡ ᠪᠣᠯ ᠦᠭᠡᠢ ᠪᠠᠶᠢᠨ᠎ᠠ ᠮᠥᠨ ᠴᠤ ᠴᠦ
ཀྱི གྱི གི ཡི ཀྱིས གྱིས གིས ཡིས ནི ཡོད ཡིན རེད འདུག ཞིག ཅིག ཤིག འདི འདིའི དེ དེའི ལ ན ར སུ ཏུ དུ རུ
`;

/**
 * The form a word of these scripts is looked up in: without the zero-width non-joiner (Persian
 * writes می‌شود and میشود), Hebrew points and Arabic harakat (marks few documents write), and
 * with Arabic's ي and ك as Persian's ی and ک (the same letters, encoded apart), and without
 * Mongolian's vowel separator and variation selectors (ᠪᠠᠶᠢᠨ᠎ᠠ is also typed ᠪᠠᠶᠢᠨᠠ).
 */
function scriptStopKey(word: string): string {
  return word.normalize('NFC').replace(/[\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7\u064b-\u065f\u0670\u200c\u180b-\u180f]/g, '').replace(/\u064a/g, '\u06cc').replace(/\u0643/g, '\u06a9');
}

/**
 * Every form of the Persian verbs that documentation wraps around its terms, as English has
 * "want", "can", "do", "give", "have", "be" in STOP_WORDS: a Persian verb is written in many
 * forms (prefix, stem, person), so a list of a few of them missed the rest, and a page that
 * says "I want", "you want" and "we want" (میخواهم, میخواهید, میخواهیم) had each as a keyword
 * (s61 probe, helper 90). خواستن "want" (and the future's خواهم), توانستن "can", and the light
 * verbs of compound verbs (تغییر دادن "to change" is "change" + دادن "give"): کردن, شدن, دادن,
 * داشتن, بودن. Present stems take می, نمی, ب or ن before and a person after; past stems the
 * same, or no person (the third person singular: کرد, شد). No bare stem and no participle:
 * ده is "ten", داده "data", خواسته "requirement". Nor the forms that are also nouns or
 * adjectives: شدید "severe", کردی "Kurdish", بدهی "debt".
 */
function persianVerbForms(): string[] {
  const present = ['خواه', 'توان', 'کن', 'شو', 'ده', 'دار', 'باش'];
  const past = ['خواست', 'توانست', 'کرد', 'شد', 'داد', 'داشت', 'بود'];
  const persons = ['م', 'ی', 'د', 'یم', 'ید', 'ند'];
  const prefixes = ['', 'می', 'نمی', 'ب', 'ن'];
  const forms: string[] = [];
  for (const prefix of prefixes) {
    for (const stem of present) for (const person of persons) forms.push(prefix + stem + person);
    if (prefix === 'ب') continue;
    for (const stem of past) for (const person of ['', ...persons]) forms.push(prefix + stem + person);
  }
  const alsoContent = new Set(['شدید', 'کردی', 'بدهی']);
  return forms.filter((f) => !alsoContent.has(f));
}

const SCRIPT_STOP_WORDS: ReadonlySet<string> = new Set([...SCRIPT_STOP_WORDS_LIST.trim().split(/\s+/), ...persianVerbForms()].map(scriptStopKey));

/** Hebrew, Arabic (Persian is written in it), Devanagari, Tamil, Tibetan, Ethiopic and Mongolian letters: the words SCRIPT_STOP_WORDS may hold. */
const SCRIPT_STOP_LETTER = /[\u0590-\u06ff\u0900-\u097f\u0b80-\u0bff\u0f00-\u0fff\u1200-\u139f\u1800-\u18af]/;

/** Whether a lower-cased word is a function word of Arabic, Persian, Hebrew, Hindi, Amharic, Tamil, Mongolian or Tibetan (SCRIPT_STOP_WORDS). */
export function isScriptStopWord(word: string): boolean {
  return SCRIPT_STOP_LETTER.test(word) && SCRIPT_STOP_WORDS.has(scriptStopKey(word));
}
