import { spanishReading } from './reading/es.ts';
import type { LanguagePack } from './types.ts';

export const spanish: LanguagePack = {
  iso2: 'es',
  englishName: 'Spanish',
  locale: 'es-ES',
  // Unaccented only: "qué", "cómo", "sí", "tú", "mí" end questions and answers. No verbs, no demonstratives ("Quiero ese.").
  trailingWords: new Set([
    'y', 'e', 'o', 'u', 'pero', 'porque', 'que', 'si', 'cuando', 'mientras', 'aunque', 'como',
    'a', 'al', 'de', 'del', 'en', 'con', 'para', 'por', 'sin', 'sobre', 'desde', 'hasta', 'entre',
    'el', 'la', 'los', 'las', 'un', 'una', 'unos', 'unas', 'mi', 'mis', 'su', 'sus', 'tu', 'tus',
    'eh', 'em', 'mm', 'pues',
  ]),
  countWords: new Set(['a', 'las', 'la', 'para', 'hasta', 'por', 'de', 'desde']),
  voicemailPhrases: [
    /\b(deje|deja|dejen) (su |tu |un )?(breve )?(mensaje|recado)\b/,
    /\bdespues (de la senal|del tono|del pitido|de la senal acustica)\b/,
    /\b(buzon de voz|contestador( automatico)?)\b/,
    /\b(no (esta|estoy|estamos) disponible(s)?)\b/,
    /\b(no (puedo|podemos) (atender|contestar|responder)) (su |tu )?(llamada)?\b/,
    /\b(le|te) (devolvere|devolveremos) la llamada\b/,
    /\bel (numero|telefono) (marcado|al que llama) no (esta disponible|se encuentra disponible)\b/,
    /\b(esta|se encuentra) apagado\b|\bfuera de cobertura\b/,
  ],
  backchannels: new Set(['aja', 'ajá', 'mhm', 'sí', 'si', 'vale', 'claro', 'bueno', 'ya', 'exacto', 'de acuerdo', 'entiendo', 'ok', 'okay']),
  interruptionWords: new Set(['pare', 'espera', 'espere', 'un momento', 'perdón', 'perdone', 'disculpe', 'alto']),
  goodbyes: {
    max_duration: 'Hemos llegado al límite de tiempo de esta llamada. Gracias por llamar, ¡adiós!',
    silence_timeout: 'Hace un rato que no le oigo, así que voy a terminar la llamada. ¡Adiós!',
    balance_exhausted: 'Lo siento, se ha agotado el saldo de esta llamada, así que tiene que terminar ahora. ¡Adiós!',
  },
  reengageInstruction: '(La persona que llama lleva un rato sin decir nada. Pregúntale de forma breve y natural si sigue ahí.)',
  fillerPhrases: ['Un momento, por favor.', 'Déjeme comprobarlo.', 'Un segundo.'],
  lastTurns: { nothingSaid: 'La persona que llama todavía no ha dicho nada.', lead: 'Lo último que se dijo fue:', callerSaid: 'la persona que llama dijo', assistantSaid: 'yo dije' },
  reading: spanishReading,
};
