// Amharic, Tamil, Khmer, Lao, Mongolian and Myanmar had no list of function words, so theirs
// were keywords of a page about a server: ነው ("is"), እና ("and"), ውስጥ ("in") and ይህ ("this");
// உள்ளது ("is") and வேண்டும் ("must"); នេះ ("this") and នៅក្នុង ("in"); ຢູ່ ("at"), ແລະ ("and"),
// ນີ້ ("this") and the phrase ຢູ່ໃນ; ᠨᠢ (topic), ᠡᠨᠡ ("this") and ᠪᠠᠶᠢᠨ᠎ᠠ ("is"); သည်, ကို, ပါ and
// တွင် (particles); and Tibetan's particles ཀྱི, ནི and ཡོད, each a syllable between tshegs
// (helper-91 probe). The pages are a short real text each, the same page in every language.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractKeywords } from './index.js';
import { isScriptStopWord, isUnspacedStopWord } from './words.js';

const names = (text: string, max = 40) => extractKeywords([{ name: 'golden-reference.md', text }], { max }).map((e) => e.name);

const AM = `# የአገልጋይ ውቅር

አገልጋዩ በፖርት 8080 ላይ ይሰራል። የውቅር ፋይሉ በአቃፊው ውስጥ ነው። አገልጋዩን ለማዋቀር የውቅር ፋይሉን ይክፈቱ እና ፖርቱን ይቀይሩ። ይህ ፋይል አስፈላጊ ነው። አገልጋዩ ካልጀመረ የውቅር ፋይሉን ያረጋግጡ።

## ፖርቱን መቀየር

ፖርቱ በውቅር ፋይሉ ውስጥ ነው። ይህ ቁጥር ከ1024 በላይ መሆን አለበት። የውቅር ፋይሉ እና አገልጋዩ በአንድ አቃፊ ውስጥ ናቸው።
`;
const TA = `# சேவையக அமைப்பு

சேவையகம் 8080 என்ற போர்ட்டில் இயங்குகிறது. அமைப்பு கோப்பு இந்தக் கோப்புறையில் உள்ளது. சேவையகத்தை அமைக்க நீங்கள் அமைப்பு கோப்பைத் திறந்து போர்ட்டை மாற்ற வேண்டும். இது ஒரு முக்கியமான கோப்பு ஆகும். சேவையகம் தொடங்கவில்லை என்றால் அமைப்பு கோப்பைச் சரிபார்க்கவும்.

## போர்ட்டை மாற்றுதல்

போர்ட் எண் அமைப்பு கோப்பில் உள்ளது. இந்த எண் 1024 விட அதிகமாக இருக்க வேண்டும். அமைப்பு கோப்பு மற்றும் சேவையகம் ஒரே கோப்புறையில் உள்ளன.
`;
const KM = `# ការកំណត់ម៉ាស៊ីនមេ

ម៉ាស៊ីនមេដំណើរការនៅលើច្រក 8080។ ឯកសារកំណត់រចនាសម្ព័ន្ធមាននៅក្នុងថតនេះ។ ដើម្បីកំណត់ម៉ាស៊ីនមេ អ្នកត្រូវបើកឯកសារកំណត់រចនាសម្ព័ន្ធ ហើយប្តូរច្រក។ ប្រសិនបើម៉ាស៊ីនមេមិនចាប់ផ្តើមទេ សូមពិនិត្យឯកសារកំណត់រចនាសម្ព័ន្ធ។

## ការប្តូរច្រក

ច្រកគឺជាលេខនៅក្នុងឯកសារកំណត់រចនាសម្ព័ន្ធ។ លេខនេះត្រូវតែធំជាង 1024។ ឯកសារ និងម៉ាស៊ីនមេនៅក្នុងថតតែមួយ។
`;
const LO = `# ການຕັ້ງຄ່າເຊີບເວີ

ເຊີບເວີເຮັດວຽກຢູ່ພອດ 8080. ໄຟລ໌ການຕັ້ງຄ່າຢູ່ໃນໂຟນເດີນີ້. ເພື່ອຕັ້ງຄ່າເຊີບເວີ ທ່ານຕ້ອງເປີດໄຟລ໌ການຕັ້ງຄ່າ ແລະ ປ່ຽນພອດ. ຖ້າເຊີບເວີບໍ່ເລີ່ມ ໃຫ້ກວດສອບໄຟລ໌ການຕັ້ງຄ່າ.

## ການປ່ຽນພອດ

ພອດແມ່ນຕົວເລກຢູ່ໃນໄຟລ໌ການຕັ້ງຄ່າ. ຕົວເລກນີ້ຕ້ອງໃຫຍ່ກວ່າ 1024. ໄຟລ໌ ແລະ ເຊີບເວີຢູ່ໃນໂຟນເດີດຽວກັນ.
`;
const MY = `# ဆာဗာ ပြင်ဆင်ခြင်း

ဆာဗာသည် ပို့တ် 8080 တွင် အလုပ်လုပ်သည်။ ပြင်ဆင်မှုဖိုင်သည် ဤဖိုင်တွဲထဲတွင် ရှိသည်။ ဆာဗာကို ပြင်ဆင်ရန် ပြင်ဆင်မှုဖိုင်ကို ဖွင့်ပြီး ပို့တ်ကို ပြောင်းပါ။ ဆာဗာ မစတင်ပါက ပြင်ဆင်မှုဖိုင်ကို စစ်ဆေးပါ။

## ပို့တ်ကို ပြောင်းခြင်း

ပို့တ်သည် ပြင်ဆင်မှုဖိုင်ထဲရှိ နံပါတ်ဖြစ်သည်။ ဤနံပါတ်သည် 1024 ထက် ကြီးရမည်။ ဖိုင် နှင့် ဆာဗာသည် ဖိုင်တွဲတစ်ခုတည်းတွင် ရှိသည်။
`;
const MN = `# ᠰᠧᠷᠸᠧᠷ ᠤᠨ ᠲᠣᠬᠢᠷᠠᠭᠤᠯᠭ᠎ᠠ

ᠰᠧᠷᠸᠧᠷ ᠨᠢ 8080 ᠫᠣᠷᠲ ᠢ ᠰᠣᠨᠣᠰᠤᠨ᠎ᠠ᠃ ᠲᠣᠬᠢᠷᠠᠭᠤᠯᠭ᠎ᠠ ᠶᠢᠨ ᠹᠠᠶᠢᠯ ᠨᠢ ᠡᠨᠡ ᠬᠠᠪᠲᠠᠰ ᠲᠤ ᠪᠠᠶᠢᠨ᠎ᠠ᠃ ᠰᠧᠷᠸᠧᠷ ᠨᠢ ᠡᠬᠢᠯᠡᠬᠦ ᠦᠭᠡᠢ ᠪᠣᠯ ᠲᠣᠬᠢᠷᠠᠭᠤᠯᠭ᠎ᠠ ᠶᠢᠨ ᠹᠠᠶᠢᠯ ᠢ ᠰᠢᠯᠭᠠ᠃

## ᠫᠣᠷᠲ ᠢ ᠥᠭᠡᠷᠡᠴᠢᠯᠡᠬᠦ

ᠫᠣᠷᠲ ᠨᠢ ᠲᠣᠬᠢᠷᠠᠭᠤᠯᠭ᠎ᠠ ᠶᠢᠨ ᠹᠠᠶᠢᠯ ᠳᠤ ᠪᠠᠶᠢᠨ᠎ᠠ᠃ ᠡᠨᠡ ᠲᠣᠭ᠎ᠠ ᠨᠢ 1024 ᠡᠴᠡ ᠶᠡᠬᠡ ᠪᠠᠶᠢᠬᠤ ᠬᠡᠷᠡᠭᠲᠡᠶ᠃ ᠹᠠᠶᠢᠯ ᠪᠠ ᠰᠧᠷᠸᠧᠷ ᠨᠢ ᠨᠢᠭᠡ ᠬᠠᠪᠲᠠᠰ ᠲᠤ ᠪᠠᠶᠢᠨ᠎ᠠ᠃
`;
const BO = `# ཞབས་ཞུ་འཕྲུལ་ཆས་ཀྱི་སྒྲིག་འགོད།

ཞབས་ཞུ་འཕྲུལ་ཆས་ནི་སྒོ་ 8080 ལ་ལས་ཀ་བྱེད་ཀྱི་ཡོད། སྒྲིག་འགོད་ཡིག་ཆ་ནི་ཡིག་སྣོད་འདིའི་ནང་དུ་ཡོད། ཞབས་ཞུ་འཕྲུལ་ཆས་སྒྲིག་འགོད་བྱེད་པར་སྒྲིག་འགོད་ཡིག་ཆ་ཁ་ཕྱེ་ནས་སྒོ་བརྗེ་དགོས།
`;

describe('function words of Amharic, Tamil, Khmer, Lao, Mongolian, Myanmar and Tibetan', () => {
  it.each([
    ['Amharic', AM, ['ነው', 'እና', 'ውስጥ', 'ይህ', 'ውስጥ ነው'], ['አገልጋዩ', 'የውቅር ፋይሉ', 'የአገልጋይ ውቅር']],
    ['Tamil', TA, ['உள்ளது', 'வேண்டும்', 'இந்தக்', 'மற்றும்'], ['சேவையகம்', 'அமைப்பு கோப்பு', 'சேவையக அமைப்பு']],
    ['Khmer', KM, ['នេះ', 'នៅក្នុង', 'និង', 'ការ'], ['ម៉ាស៊ីនមេ', 'ឯកសារកំណត់រចនាសម្ព័ន្ធ', 'ច្រក']],
    ['Lao', LO, ['ຢູ່', 'ແລະ', 'ນີ້', 'ຢູ່ໃນ', 'ຕ້ອງ', 'ຢູ່ໃນໂຟນ'], ['ເຊີບເວີ', 'ການຕັ້ງຄ່າ', 'ພອດ']],
    ['Mongolian', MN, ['ᠨᠢ', 'ᠡᠨᠡ', 'ᠪᠠᠶᠢᠨ᠎ᠠ', 'ᠶᠢᠨ', 'ᠰᠧᠷᠸᠧᠷ ᠨᠢ', 'ᠬᠠᠪᠲᠠᠰ ᠲᠤ ᠪᠠᠶᠢᠨ᠎ᠠ'], ['ᠰᠧᠷᠸᠧᠷ', 'ᠫᠣᠷᠲ', 'ᠲᠣᠬᠢᠷᠠᠭᠤᠯᠭ᠎ᠠ ᠶᠢᠨ ᠹᠠᠶᠢᠯ', 'ᠰᠧᠷᠸᠧᠷ ᠤᠨ ᠲᠣᠬᠢᠷᠠᠭᠤᠯᠭ᠎ᠠ']],
    ['Myanmar', MY, ['သည်', 'ကို', 'ပါ', 'တွင်', 'ဆာဗာသည်', 'ပို့တ်ကို', 'တွင် ရှိသည်'], ['ဆာဗာ', 'ပြင်ဆင်မှုဖိုင်', 'နံပါတ်']],
    ['Tibetan', BO, ['ཀྱི', 'ནི', 'ཡོད'], ['སྒྲིག་འགོད']],
  ])("%s: no function word is a keyword or a phrase's first or last word", (_, text, absent, present) => {
    const got = names(text);
    for (const name of absent) expect(got).not.toContain(name.normalize('NFC'));
    for (const name of present) expect(got).toContain(name.normalize('NFC'));
    for (const name of got) {
      const words = name.split(' ');
      for (const w of [words[0]!, words[words.length - 1]!]) expect(isScriptStopWord(w) || isUnspacedStopWord(w), name).toBe(false);
    }
  });

  it('knows Mongolian words with and without the vowel separator, and content words for none', () => {
    expect(isScriptStopWord('ᠪᠠᠶᠢᠨ᠎ᠠ')).toBe(true);
    expect(isScriptStopWord('ᠪᠠᠶᠢᠨᠠ')).toBe(true);
    for (const w of ['ᠰᠧᠷᠸᠧᠷ', 'ᠹᠠᠶᠢᠯ', 'አገልጋዩ', 'ፋይል', 'சேவையகம்', 'கோப்பு', 'སྒྲིག', 'ལས', 'དང', 'விட']) expect(isScriptStopWord(w), w).toBe(false);
    for (const w of ['ម៉ាស៊ីនមេ', 'ឯកសារ', 'តែ', 'ເຊີບເວີ', 'ໄຟລ໌', 'ມາ', 'ဆာဗာ', 'ဖိုင်', 'မှု']) expect(isUnspacedStopWord(w), w).toBe(false);
    // Lao's ຳ typed as one character or as ໍ + າ.
    expect(isUnspacedStopWord('ສຳລັບ')).toBe(true);
    expect(isUnspacedStopWord('ສໍາລັບ')).toBe(true);
  });

  it('never lets one of these function words start or end a keyword, whatever the text around it (property)', () => {
    const stops = ['ነው', 'እና', 'ውስጥ', 'உள்ளது', 'வேண்டும்', 'இந்த', 'ᠨᠢ', 'ᠶᠢᠨ', 'ᠲᠤ', 'ᠪᠠᠶᠢᠨ᠎ᠠ', 'ཀྱི', 'ཡོད'];
    const content = ['አገልጋዩ', 'ፋይሉ', 'சேவையகம்', 'கோப்பு', 'ᠰᠧᠷᠸᠧᠷ', 'ᠹᠠᠶᠢᠯ', 'སྒྲིག', 'འགོད'];
    // Unspaced scripts: words glued as written, Intl.Segmenter cuts them again.
    const glued = ['នៅក្នុង', 'នេះ', 'ម៉ាស៊ីនមេ', 'ឯកសារ', 'ຢູ່', 'ໃນ', 'ນີ້', 'ໄຟລ໌', 'ພອດ', 'သည်', 'ကို', 'ဆာဗာ', 'ဖိုင်'];
    const line = fc
      .array(fc.oneof(fc.constantFrom(...stops, ...content), fc.array(fc.constantFrom(...glued), { minLength: 1, maxLength: 4 }).map((ws) => ws.join(''))), { minLength: 1, maxLength: 8 })
      .map((ws) => ws.join(' '));
    const doc = fc.tuple(line, fc.array(line, { minLength: 1, maxLength: 12 })).map(([h, body]) => `# ${h}\n\n${body.join('\n\n')}\n`);
    fc.assert(
      fc.property(doc, (text) => {
        for (const name of names(text, 100)) {
          for (const w of [...stops, ...glued.filter((g) => isUnspacedStopWord(g))]) {
            expect(name === w || name.startsWith(`${w} `) || name.endsWith(` ${w}`), `${name} in ${text}`).toBe(false);
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});
