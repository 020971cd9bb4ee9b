import { frenchReading } from './reading/fr.ts';
import type { LanguagePack } from './types.ts';

export const french: LanguagePack = {
  iso2: 'fr',
  englishName: 'French',
  locale: 'fr-FR',
  // No verbs ("Il y en a."), and not "qui", "quand", "alors" or "bien", which end questions and answers ("C'est qui ?", "Très bien.").
  trailingWords: new Set([
    'et', 'mais', 'ou', 'car', 'parce', 'que', 'si', 'lorsque', 'comme',
    'à', 'au', 'aux', 'de', 'du', 'des', 'dans', 'avec', 'pour', 'par', 'sur', 'sans', 'chez', 'vers',
    'un', 'une', 'mon', 'ma', 'mes', 'votre', 'vos', 'notre', 'nos', 'ce', 'cette', 'ces', 'le', 'la', 'les',
    'euh', 'heu', 'bah', 'ben', 'hum', 'je',
  ]),
  countWords: new Set(['à', 'a', 'pour', 'vers', 'avant', 'après', 'de', "jusqu'à"]),
  voicemailPhrases: [
    /\b(laissez|laisse|laissez moi|laisse moi) (un |votre |ton )?(petit |bref )?message\b/,
    /\bapres le (bip|signal( sonore)?|tonalite)\b/,
    /\b(messagerie( vocale)?|repondeur)\b/,
    /\b(je ne suis pas|nous ne sommes pas|nest pas) (disponible(s)?|joignable(s)?)\b/,
    /\b(ne peux pas|ne pouvons pas) (vous )?(repondre|prendre (votre|ton) appel)\b/,
    /\b(je vous rappelle(rai)?|nous vous rappellerons|je te rappelle(rai)?)\b/,
    /\ble (numero|correspondant) (que vous avez (demande|compose)|n est pas disponible)\b/,
    /\bvous etes bien (sur|chez)\b/,
  ],
  backchannels: new Set(['oui', 'ouais', 'mhm', 'hum', 'd accord', "d'accord", 'ok', 'okay', 'exactement', 'voilà', 'voila', 'je vois', 'bien sûr', 'ah bon', 'entendu']),
  interruptionWords: new Set(['stop', 'arrêtez', 'arrête', 'attendez', 'attends', 'un instant', 'pardon', 'excusez moi', 'excusez-moi']),
  goodbyes: {
    max_duration: 'Nous avons atteint la durée maximale de cet appel. Merci de votre appel, au revoir !',
    silence_timeout: 'Je ne vous entends plus depuis un moment, je vais donc mettre fin à l\'appel. Au revoir !',
    balance_exhausted: 'Je suis désolé, le crédit de cet appel est épuisé, l\'appel doit donc se terminer maintenant. Au revoir !',
  },
  reengageInstruction: '(L\'appelant n\'a rien dit depuis un moment. Vérifiez brièvement et naturellement qu\'il est toujours là.)',
  fillerPhrases: ['Un instant, s\'il vous plaît.', 'Je vérifie cela pour vous.', 'Une seconde.'],
  lastTurns: { nothingSaid: 'L\'appelant n\'a encore rien dit.', lead: 'Les derniers mots étaient :', callerSaid: 'l\'appelant a dit', assistantSaid: 'j\'ai dit' },
  reading: frenchReading,
};
