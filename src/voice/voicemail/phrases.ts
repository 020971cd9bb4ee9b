/**
 * The words of a voicemail greeting. A person answering says "hello?" or their name; a recorded greeting says
 * that nobody can come to the phone and asks for a message after the tone. The recognizer's text is matched
 * loosely (case, punctuation and contractions do not matter), since a small model hears a phone line roughly.
 */

const PHRASES: RegExp[] = [
  /\bleave (a|your|me a|us a) (brief |short |detailed )?(message|voice ?mail|name and number)\b/,
  /\b(after|at) the (tone|beep|signal)\b/,
  /\b(you have|youve) reached\b/,
  /\bnot available\b|\bunavailable\b/,
  /\b(cannot|unable to) (take|answer|come to) (your|the) (call|phone)\b/,
  /\brecord(ing)? your message\b/,
  /\bvoice ?mail\b|\bmail ?box\b|\banswering (machine|service)\b/,
  /\bget back to you\b|\breturn your call\b/,
  /\bwhen you (have )?finish(ed)? recording\b/,
  /\bthe (person|number|subscriber) you (are calling|have dialed|dialed)\b/,
];

/** Lower case, apostrophes and punctuation gone, "can't" and "can not" spelled "cannot", one space between words. */
export function normalizeWords(text: string): string {
  return text
    .toLowerCase()
    .replace(/['\u2018\u2019`]/g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .replace(/\b(cant|can not)\b/g, 'cannot')
    .trim();
}

/** The voicemail phrase `text` holds, as matched in its normalized words; undefined when there is none. */
export function voicemailPhrase(text: string): string | undefined {
  const words = normalizeWords(text);
  if (!words) return undefined;
  for (const phrase of PHRASES) {
    const match = phrase.exec(words);
    if (match) return match[0];
  }
  return undefined;
}
