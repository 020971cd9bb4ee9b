/**
 * The bench's phone sentences: what callers say on a booking or service line, eight per language, read by
 * the caller voices of speech-local.ts and heard through a phone line (8 kHz μ-law) by the offline recognizer.
 */
export const PHONE_SENTENCES: Record<string, string[]> = {
  en: [
    'Thanks for calling, your appointment is now confirmed for Tuesday at three.',
    'I would like to book an appointment for Tuesday at three.',
    'Could you tell me when the office opens tomorrow morning?',
    'Sure.',
    'My account number is four five six seven, and I moved last month.',
    'No, that does not work for me, sorry.',
    'How much does the delivery to Boston cost?',
    'Thank you very much for your help, goodbye.',
  ],
  de: [
    'Guten Tag, ich möchte einen Termin für Dienstag vereinbaren.',
    'Können Sie mir sagen, wann das Büro morgen früh öffnet?',
    'Ja, gerne.',
    'Meine Kundennummer habe ich leider nicht zur Hand.',
    'Ich bin letzten Monat umgezogen und brauche eine neue Adresse.',
    'Nein, das passt mir leider nicht.',
    'Wie viel kostet die Lieferung nach Berlin?',
    'Vielen Dank für Ihre Hilfe, auf Wiederhören.',
  ],
  es: [
    'Buenos días, quisiera reservar una cita para el martes.',
    '¿Me puede decir cuándo abre la oficina mañana por la mañana?',
    'Sí, claro.',
    'No tengo mi número de cliente a mano.',
    'Me mudé el mes pasado y necesito cambiar la dirección.',
    'No, eso no me viene bien.',
    '¿Cuánto cuesta el envío a Madrid?',
    'Muchas gracias por su ayuda, adiós.',
  ],
  fr: [
    'Bonjour, je voudrais prendre un rendez-vous pour mardi.',
    'Pouvez-vous me dire quand le bureau ouvre demain matin ?',
    'Oui, bien sûr.',
    "Je n'ai pas mon numéro de client sous la main.",
    "J'ai déménagé le mois dernier et je dois changer mon adresse.",
    'Non, cela ne me convient pas.',
    'Combien coûte la livraison à Paris ?',
    'Merci beaucoup pour votre aide, au revoir.',
  ],
};
