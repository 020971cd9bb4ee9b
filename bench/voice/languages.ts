/** What the voice benchmarks' callers say and hear in each language the offline stack serves. */
export interface BenchLanguage {
  /** espeak-ng's voice for the caller's lines. */
  callerVoice: string;
  greeting: string;
  /** What the fake model answers every turn. */
  reply: string;
  lines: string[];
  /** Said over a reply to interrupt it. */
  interruption: string;
}

export const BENCH_LANGUAGES: Record<string, BenchLanguage> = {
  en: {
    callerVoice: 'en-us',
    greeting: 'Hello, this is Parley. How can I help you today?',
    reply: 'Sure, I can help with that. Is there anything else you need today?',
    lines: [
      'I would like to book an appointment for Tuesday at three.',
      'Could you tell me when the office opens tomorrow morning?',
      'My account number is four five six seven.',
      'Can I pay by credit card when I arrive?',
      'Please send the confirmation to my email address.',
    ],
    interruption: 'Hold on, I have a question.',
  },
  de: {
    callerVoice: 'de',
    greeting: 'Guten Tag, hier ist Parley. Wie kann ich Ihnen helfen?',
    reply: 'Gerne, dabei kann ich Ihnen helfen. Brauchen Sie sonst noch etwas?',
    lines: [
      'Ich möchte einen Termin für Dienstag um drei Uhr vereinbaren.',
      'Können Sie mir sagen, wann das Büro morgen früh öffnet?',
      'Meine Kundennummer ist vier fünf sechs sieben.',
      'Kann ich bei der Ankunft mit Kreditkarte bezahlen?',
      'Bitte schicken Sie die Bestätigung an meine E-Mail-Adresse.',
    ],
    interruption: 'Moment, ich habe eine Frage.',
  },
  es: {
    callerVoice: 'es',
    greeting: 'Buenos días, le atiende Parley. ¿En qué puedo ayudarle?',
    reply: 'Claro, puedo ayudarle con eso. ¿Necesita algo más?',
    lines: [
      'Quisiera reservar una cita para el martes a las tres.',
      '¿Me puede decir cuándo abre la oficina mañana por la mañana?',
      'Mi número de cliente es cuatro cinco seis siete.',
      '¿Puedo pagar con tarjeta de crédito al llegar?',
      'Por favor, envíe la confirmación a mi correo electrónico.',
    ],
    interruption: 'Espere, tengo una pregunta.',
  },
  fr: {
    callerVoice: 'fr',
    greeting: 'Bonjour, ici Parley. Comment puis-je vous aider ?',
    reply: 'Bien sûr, je peux vous aider. Avez-vous besoin d\'autre chose ?',
    lines: [
      'Je voudrais prendre un rendez-vous pour mardi à trois heures.',
      'Pouvez-vous me dire quand le bureau ouvre demain matin ?',
      'Mon numéro de client est quatre cinq six sept.',
      'Puis-je payer par carte de crédit à mon arrivée ?',
      'Merci d\'envoyer la confirmation à mon adresse e-mail.',
    ],
    interruption: 'Attendez, j\'ai une question.',
  },
};
