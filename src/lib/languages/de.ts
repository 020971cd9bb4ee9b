import { germanReading } from './reading/de.ts';
import type { LanguagePack } from './types.ts';

export const german: LanguagePack = {
  iso2: 'de',
  englishName: 'German',
  locale: 'de-DE',
  // No verbs and no prepositions that double as separable particles ("Ich rufe morgen an."), and not "ich"
  // ("Das mache ich."): German ends finished sentences with them.
  trailingWords: new Set([
    'und', 'aber', 'oder', 'denn', 'weil', 'dass', 'ob', 'wenn', 'als', 'damit', 'obwohl', 'sondern', 'bevor', 'nachdem',
    'zum', 'zur', 'von', 'vom', 'für', 'in', 'im', 'am', 'beim', 'bis', 'ohne',
    'der', 'die', 'das', 'den', 'dem', 'des', 'ein', 'eine', 'einen', 'einem', 'einer', 'mein', 'meine', 'meinen', 'meinem', 'unser', 'unsere', 'dieser', 'diese', 'dieses',
    'äh', 'ähm', 'öh', 'hm', 'hmm',
  ]),
  countWords: new Set(['um', 'für', 'bis', 'gegen', 'ab', 'vor', 'nach', 'zu']),
  voicemailPhrases: [
    /\b(hinterlassen sie|hinterlasse|hinterlasst|hinterlass) (mir |uns )?(bitte )?(eine |ihre |deine )?(kurze )?nachricht\b/,
    /\bnach dem (signalton|piepton|ton|piep)\b/,
    /\b(sie sind|du bist) (mit )?(der|dem) (mailbox|anrufbeantworter|sprachbox)\b/,
    /\bmailbox\b|\banrufbeantworter\b|\bsprachbox\b|\bsprachnachricht\b/,
    /\b(bin|sind|ist) (gerade |zurzeit |derzeit |momentan )?nicht (erreichbar|zu erreichen)\b/,
    /\b(kann|konnen) (ihren anruf|den anruf|deinen anruf) (gerade |im moment )?nicht (entgegennehmen|annehmen)\b/,
    /\b(rufe|rufen) (sie |dich )?(so schnell wie moglich |schnellstmoglich |baldmoglichst )?zuruck\b/,
    /\bder (teilnehmer|gesprachspartner) ist (zurzeit |derzeit )?nicht erreichbar\b/,
  ],
  backchannels: new Set(['mhm', 'hm', 'hmm', 'ja', 'jaja', 'genau', 'okay', 'ok', 'gut', 'alles klar', 'stimmt', 'richtig', 'aha', 'ach so', 'verstehe']),
  interruptionWords: new Set(['stopp', 'stop', 'halt', 'moment', 'warte', 'warten sie', 'entschuldigung', 'moment mal']),
  goodbyes: {
    max_duration: 'Wir haben das Zeitlimit für diesen Anruf erreicht. Vielen Dank für Ihren Anruf, auf Wiederhören!',
    silence_timeout: 'Ich habe eine Weile nichts von Ihnen gehört, deshalb beende ich jetzt den Anruf. Auf Wiederhören!',
    balance_exhausted: 'Es tut mir leid, das Guthaben für diesen Anruf ist aufgebraucht, deshalb muss der Anruf jetzt enden. Auf Wiederhören!',
  },
  reengageInstruction: '(Der Anrufer hat eine Weile nichts gesagt. Fragen Sie kurz und natürlich, ob er noch da ist.)',
  fillerPhrases: ['Einen Moment, bitte.', 'Ich sehe kurz nach.', 'Eine Sekunde.'],
  lastTurns: { nothingSaid: 'Der Anrufer hat noch nichts gesagt.', lead: 'Zuletzt wurde gesagt:', callerSaid: 'der Anrufer sagte', assistantSaid: 'ich sagte' },
  reading: germanReading,
};
