import { describe, expect, it } from 'vitest';
import { evaluateTranscript } from '../../src/agent/evaluation.ts';
import { foldWords, hasLanguagePack, languageName, languagePack, wordsBeyondBackchannels } from '../../src/lib/languages/index.ts';
import { speakable } from '../../src/lib/languages/speakable.ts';
import type { ChatEvent, ChatRequest, LanguageModel } from '../../src/providers/llm/types.ts';
import { goodbyesIn, reengageInstructionIn } from '../../src/voice/session-parts.ts';
import { shouldInterrupt } from '../../src/voice/turns/barge-in.ts';
import { completeness, endOfTurnSilenceMs } from '../../src/voice/turns/endpointing.ts';
import { voicemailPhrase } from '../../src/voice/voicemail/phrases.ts';

describe('language packs', () => {
  it('finds a pack by BCP 47 or ISO 639-1 code, English for a language without one', () => {
    expect(languagePack('de-DE').iso2).toBe('de');
    expect(languagePack('fr').iso2).toBe('fr');
    expect(languagePack('es_ES').iso2).toBe('es');
    expect(hasLanguagePack('it-IT')).toBe(false);
    expect(languagePack('it-IT').iso2).toBe('en');
    expect(languagePack(undefined).iso2).toBe('en');
  });

  it('names a language in English for a model, packed or not, and nothing for a code Intl cannot name', () => {
    expect(languageName('de-DE')).toBe('German');
    expect(languageName('fr')).toBe('French');
    expect(languageName('it-IT')).toBe('Italian');
    expect(languageName('xx')).toBeUndefined();
    expect(languageName('not a language')).toBeUndefined();
  });

  it('folds words as a small recognizer spells them: case, accents, apostrophes and punctuation gone', () => {
    expect(foldWords('Können Sie mich zurückrufen?')).toBe('konnen sie mich zuruckrufen');
    expect(foldWords('Straße')).toBe('strasse');
    expect(foldWords("N'est-ce pas… L'été!")).toBe('nest ce pas lete');
    expect(foldWords('¿Dónde está?')).toBe('donde esta');
  });
});

describe('turn-taking text checks in each language', () => {
  it('hears a finished sentence and one that trails off on a conjunction, article or hesitation', () => {
    expect(completeness('Ich möchte einen Tisch für', 'de-DE')).toBe('incomplete');
    expect(completeness('Ich komme morgen und', 'de-DE')).toBe('incomplete');
    expect(completeness('Äh, ich brauche einen, ähm', 'de-DE')).toBe('incomplete');
    // German ends sentences on separable particles and "ich": not a trailing word there.
    expect(completeness('Ich rufe morgen an.', 'de-DE')).toBe('complete');
    expect(completeness('Das mache ich.', 'de-DE')).toBe('complete');
    expect(completeness('Quiero reservar una mesa para', 'es-ES')).toBe('incomplete');
    expect(completeness('¿Qué?', 'es-ES')).toBe('complete');
    expect(completeness('Je voudrais réserver pour', 'fr-FR')).toBe('incomplete');
    expect(completeness('Très bien.', 'fr-FR')).toBe('complete');
    expect(completeness("C'est qui ?", 'fr-FR')).toBe('complete');
    // The language decides: "und" is no English word, "and" no German one.
    expect(completeness('Rock und', 'en-US')).toBe('unknown');
    expect(completeness('Rock and', 'de-DE')).toBe('unknown');
    const ai = { endpointType: 'ai' as const, endpointSensitivity: 0.5 };
    expect(endOfTurnSilenceMs({ ...ai, sttLanguage: 'de-DE' }, 'Ich brauche einen Termin für')).toBe(1542);
    expect(endOfTurnSilenceMs({ ...ai, sttLanguage: 'de-DE' }, 'Ich brauche einen Termin.')).toBe(386);
  });

  it('lets a backchannel of the caller\'s language go on, and stops at once on a word that asks to', () => {
    const policy = { allowInterruptions: true, interruptSensitivity: 0.5, minInterruptWords: 2 };
    const heard = (text: string, sttLanguage: string) => shouldInterrupt({ ...policy, sttLanguage }, { voicedMs: 900, words: text.split(' ').length, text });
    expect(heard('mhm, genau', 'de-DE')).toBe(false);
    expect(heard('ja ja', 'de-DE')).toBe(false);
    expect(heard('Moment mal', 'de-DE')).toBe(true);
    expect(heard('Nein, ich meinte Mittwoch', 'de-DE')).toBe(true);
    expect(heard('Vale, claro', 'es-ES')).toBe(false);
    expect(heard('Espere', 'es-ES')).toBe(true);
    expect(heard("Oui, d'accord", 'fr-FR')).toBe(false);
    expect(heard('Attendez', 'fr-FR')).toBe(true);
    expect(heard('uh-huh okay', 'en-US')).toBe(false);
    expect(heard('wait', 'en-US')).toBe(true);
    expect(wordsBeyondBackchannels('ok ok ok but no', languagePack('en'))).toEqual(['but', 'no']);
    // Without the words (a recognizer that has none yet), the count alone decides, as before.
    expect(shouldInterrupt({ ...policy, sttLanguage: 'de-DE' }, { voicedMs: 900, words: 2 })).toBe(true);
  });

  it('knows a voicemail greeting by its words in the callee\'s language', () => {
    expect(voicemailPhrase('Hallo, hier ist die Mailbox von Anna Schmidt.', 'de-DE')).toBe('mailbox');
    expect(voicemailPhrase('Bitte hinterlassen Sie eine Nachricht nach dem Signalton.', 'de-DE')).toBeDefined();
    expect(voicemailPhrase('Ich bin gerade nicht erreichbar, ich rufe Sie zurück.', 'de-DE')).toBeDefined();
    expect(voicemailPhrase('Ja, hallo? Hier ist Schmidt.', 'de-DE')).toBeUndefined();
    expect(voicemailPhrase('Hola, ha llamado a Ana. Deje su mensaje después de la señal.', 'es-ES')).toBeDefined();
    expect(voicemailPhrase('¿Sí? ¿Quién es?', 'es-ES')).toBeUndefined();
    expect(voicemailPhrase("Bonjour, vous êtes bien sur la messagerie de Marie, laissez un message après le bip.", 'fr-FR')).toBeDefined();
    expect(voicemailPhrase("Je ne suis pas disponible pour le moment.", 'fr-FR')).toBeDefined();
    expect(voicemailPhrase('Allô, oui ?', 'fr-FR')).toBeUndefined();
    expect(voicemailPhrase('Please leave a message after the tone.', 'en-US')).toBeDefined();
  });
});

describe('what the engine says by itself, in the assistant\'s language', () => {
  it('says its goodbyes and asks its model to re-engage in the language, English where it has no pack', () => {
    expect(goodbyesIn('de-DE').silence_timeout).toMatch(/Auf Wiederhören!$/);
    expect(goodbyesIn('es-ES').max_duration).toMatch(/adiós/);
    expect(goodbyesIn('fr-FR').balance_exhausted).toMatch(/Au revoir/);
    expect(goodbyesIn('it-IT')).toEqual(goodbyesIn('en-US'));
    expect(reengageInstructionIn('de-DE')).toMatch(/noch da ist/);
    expect(languagePack('fr').fillerPhrases).toContain('Un instant, s\'il vous plaît.');
  });

  it('asks the evaluation in the language the call was held in', async () => {
    const requests: ChatRequest[] = [];
    const model: LanguageModel = {
      async *stream(request: ChatRequest): AsyncGenerator<ChatEvent> {
        requests.push(request);
        await Promise.resolve();
        yield { type: 'tool_calls', calls: [{ id: 'c1', name: 'record_call_evaluation', arguments: '{"status":true,"summary":"Termin gebucht."}' }] };
        yield { type: 'done', finishReason: 'tool_calls' };
      },
    };
    const input = { modelName: 'm', instructions: 'Buche Termine.', transcript: 'Customer: Hallo', schema: [] };
    expect(await evaluateTranscript(model, { ...input, language: 'German' })).toEqual({ status: true, summary: 'Termin gebucht.' });
    expect(requests[0]?.messages[0]?.content).toContain('write every text value of the evaluation in German');
    await evaluateTranscript(model, { ...input, language: 'English' });
    expect(requests[1]?.messages[0]?.content).not.toContain('write every text value');
  });
});

describe('numbers, dates, times and amounts read aloud', () => {
  const read = (text: string, language: string) => speakable(text, languagePack(language));

  it('writes out numbers in each language', () => {
    const cardinal = (language: string, n: number) => languagePack(language).reading.cardinal(n);
    expect([21, 101, 1999, 2026, 1_000_000].map((n) => cardinal('de', n))).toEqual(['einundzwanzig', 'einhunderteins', 'eintausendneunhundertneunundneunzig', 'zweitausendsechsundzwanzig', 'eine Million']);
    expect([21, 71, 80, 81, 200, 201].map((n) => cardinal('fr', n))).toEqual(['vingt et un', 'soixante et onze', 'quatre-vingts', 'quatre-vingt-un', 'deux cents', 'deux cent un']);
    expect([21, 100, 101, 500, 21_000].map((n) => cardinal('es', n))).toEqual(['veintiuno', 'cien', 'ciento uno', 'quinientos', 'veintiún mil']);
    expect([12, 40, 115].map((n) => cardinal('en', n))).toEqual(['twelve', 'forty', 'one hundred fifteen']);
  });

  it('reads dates, times and money as the language says them, and leaves other numbers to the voice', () => {
    expect(read('Ihr Termin ist am 12.03.2026 um 14:30 Uhr und kostet 3,50 €.', 'de-DE'))
      .toBe('Ihr Termin ist am zwölften März zweitausendsechsundzwanzig um vierzehn Uhr dreißig und kostet drei Euro fünfzig.');
    expect(read('Der 3. März passt, bis zum 1.4. bitte.', 'de-DE')).toBe('Der dritte März passt, bis zum ersten April bitte.');
    expect(read('Su cita es el 2026-03-01 a las 9:05 y cuesta 21,50 €.', 'es-ES'))
      .toBe('Su cita es el primero de marzo de dos mil veintiséis a las nueve y cinco y cuesta veintiún euros con cincuenta céntimos.');
    expect(read('Rendez-vous le 12/03/2026 à 14h30 pour 1 €.', 'fr-FR')).toBe('Rendez-vous le douze mars deux mille vingt-six à quatorze heures trente pour un euro.');
    expect(read('Your visit on 03/12/2026 at 9:00 costs $3.50.', 'en-US')).toBe('Your visit on March twelfth, twenty twenty-six at nine o\'clock costs three dollars and fifty cents.');
    // Not dates, times or money: a version, a fraction, a clock with seconds, a plain number.
    expect(read('Version 3.5, 1/2 Liter, 12:30:45, Zimmer 204.', 'de-DE')).toBe('Version 3.5, 1/2 Liter, 12:30:45, Zimmer 204.');
  });
});
