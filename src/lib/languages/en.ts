import { englishReading } from './reading/en.ts';
import type { LanguagePack } from './types.ts';

export const english: LanguagePack = {
  iso2: 'en',
  englishName: 'English',
  locale: 'en-US',
  trailingWords: new Set([
    'and', 'but', 'or', 'so', 'because', 'if', 'then', 'that', 'which', 'who', 'when', 'while', 'although',
    'to', 'of', 'for', 'with', 'in', 'on', 'at', 'from', 'about', 'by', 'into',
    'the', 'a', 'an', 'my', 'your', 'our', 'their', 'this', 'these', 'those',
    'um', 'uh', 'er', 'erm', 'hmm', 'like', 'i', "i'm", 'is', 'are', 'was', 'were', 'be', 'have', 'has',
  ]),
  countWords: new Set(['at', 'for', 'by', 'until', 'till', 'around', 'before', 'after', 'from', 'to']),
  voicemailPhrases: [
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
  ],
  voicemailSpellings: [[/\b(cant|can not)\b/g, 'cannot']],
  backchannels: new Set(['uh-huh', 'uh huh', 'mhm', 'mm-hmm', 'mm', 'hmm', 'yeah', 'yes', 'yep', 'okay', 'ok', 'right', 'sure', 'i see', 'got it', 'alright', 'all right']),
  interruptionWords: new Set(['stop', 'wait', 'hold on', 'hang on', 'excuse me', 'sorry']),
  goodbyes: {
    max_duration: 'We have reached the time limit for this call. Thank you for calling, goodbye!',
    silence_timeout: 'I have not heard from you in a while, so I will end the call now. Goodbye!',
    balance_exhausted: 'I am sorry, the account balance for this call has run out, so the call has to end now. Goodbye!',
  },
  reengageInstruction: '(The caller has said nothing for a while. Briefly and naturally check whether they are still there.)',
  fillerPhrases: ['One moment, please.', 'Let me check that for you.', 'Just a second.'],
  lastTurns: { nothingSaid: 'The caller has not said anything yet.', lead: 'The last words were:', callerSaid: 'the caller said', assistantSaid: 'I said' },
  reading: englishReading,
};
