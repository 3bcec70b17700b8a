// A Thai page about its settings had ค่า ("value") as its second keyword, above the port and
// the server it is about: Intl.Segmenter cuts ค่า out of every compound it heads or ends
// (ค่าเริ่มต้น "default value", ตั้งค่า "configure", ค่าของพอร์ต "the port's value"), and each
// counted as the word, where English counts "value" at the common-word penalty. Not a stop
// word: a stop word may not start or end a phrase, and ค่าเริ่มต้น and ตั้งค่า are the terms.
// Chinese 值 and Japanese 値 likewise (s61 probe, helper 90).
import { describe, expect, it } from 'vitest';
import { extractKeywords } from './index.js';

const names = (text: string, max = 12) => extractKeywords([{ name: 'golden-reference.md', text }], { max }).map((e) => e.name);

const TH = `# การตั้งค่าเซิร์ฟเวอร์

เซิร์ฟเวอร์ใช้ค่าเริ่มต้นเมื่อไม่มีไฟล์การตั้งค่า ค่าเริ่มต้นของพอร์ตคือ 8080 คุณสามารถเปลี่ยนค่าของพอร์ตได้ในไฟล์การตั้งค่า

## การเปลี่ยนพอร์ต

เปิดไฟล์การตั้งค่าแล้วแก้ไขค่าของพอร์ต จากนั้นรีสตาร์ทเซิร์ฟเวอร์ ถ้าค่าไม่ถูกต้อง เซิร์ฟเวอร์จะใช้ค่าเริ่มต้นแทน ค่านี้ต้องเป็นตัวเลข
`;

const ZH = `# 配置服务器端口

服务器在没有配置文件时使用默认值。端口的默认值是 8080。你可以在配置文件中修改端口的值。

## 修改端口

打开配置文件并修改端口的值，然后重启服务器。如果值不正确，服务器会使用默认值。这个值必须是数字。函数的返回值是端口。
`;

const JA = `# サーバーのポートを設定する

構成ファイルがない場合、サーバーは既定値を使用します。ポートの既定値は 8080 です。構成ファイルでポートの値を変更できます。

## ポートの変更

構成ファイルを開いてポートの値を変更し、サーバーを再起動します。値が正しくない場合、サーバーは既定値を使用します。この値は数値である必要があります。関数の戻り値はポートです。
`;

describe('the general nouns of Thai, Chinese and Japanese', () => {
  it.each([
    ['Thai', TH, 'ค่า', ['ตั้งค่า', 'ค่าเริ่มต้น', 'พอร์ต', 'เซิร์ฟเวอร์']],
    ['Chinese', ZH, '值', ['默认值', '端口', '服务器', '配置文件']],
    ['Japanese', JA, '値', ['既定値', 'ポート', 'サーバー', '構成ファイル']],
  ])('%s: "value" ranks below the terms it is part of and the ones the page is about, which stay keywords', (_, text, value, terms) => {
    const got = names(text);
    expect(got).toEqual(expect.arrayContaining(terms));
    for (const term of terms) expect(got.indexOf(term), `${term} in ${got.join(', ')}`).toBeLessThan(got.includes(value) ? got.indexOf(value) : Infinity);
  });
});
