import type { Knex } from 'knex';
import { ValidationError } from '../../lib/errors.ts';
import { Language, LanguageModel, SynthesizerProvider, TranscriberProvider, Voice, type ModelType, type VoiceMode } from './model.ts';

/**
 * What this deployment can speak and hear with: the synthesizer and transcriber codes it has adapters for,
 * and whether a speech-to-speech model is configured. The catalog routes list only these, so a user never
 * picks a voice nothing here can speak; an assistant may still name any catalog row (configuration changes).
 */
export interface OfferedSpeech {
  synthesizers: string[];
  transcribers: string[];
  realtime: boolean;
  /** ISO 639-1 codes the recognizer hears; undefined: every language (a hosted recognizer). */
  heard?: readonly string[] | undefined;
  /** The recognizer is the offline stack's (Whisper in local workers), not a hosted service. */
  offlineRecognizer?: boolean;
}

/** Whether this deployment holds calls in a language, and how. */
export interface LanguageService {
  /** Heard and spoken by the offline stack, no hosted provider involved. */
  offline: boolean;
  /** Its recognizer hears it and one of its voices speaks it: a pipeline assistant may speak it. */
  available: boolean;
  /** Why it is not available; null when it is. */
  reason: string | null;
}

const listed = (names: string[]) => (names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`);

/**
 * What this deployment can do in each language: hear it (its recognizer's languages), speak it (a synthesizer
 * it serves that speaks it) and whether both are offline. Without `offered` (no deployment to ask) every
 * language is available.
 */
export async function languageServices(knex: Knex, languages: Language[], offered?: OfferedSpeech): Promise<Map<number, LanguageService>> {
  const services = new Map<number, LanguageService>();
  const speakers = offered
    ? await SynthesizerProvider.query(knex).whereIn('code', offered.synthesizers)
    : [];
  let names: Promise<string> | undefined;
  const heardNames = () => (names ??= Language.query(knex).whereIn('iso2', [...offered?.heard ?? []]).orderBy('id')
    .then((heard) => listed(heard.map((language) => language.name))));
  for (const language of languages) {
    if (!offered) {
      services.set(language.id, { offline: false, available: true, reason: null });
      continue;
    }
    const heard = offered.heard === undefined || offered.heard.includes(language.iso2);
    const spoken = speakers.some((provider) => provider.languageCodes === null || provider.languageCodes.includes(language.iso2));
    let reason: string | null = null;
    if (!heard) {
      const recognizer = offered.offlineRecognizer ? 'The offline recognizer (Whisper) of this deployment' : 'The speech-to-text provider of this deployment';
      reason = `${recognizer} hears ${await heardNames()}, not ${language.name}: calls in ${language.name} need a hosted speech-to-text provider (STT_PROVIDER).`;
    } else if (!spoken) {
      reason = `No voice of this deployment speaks ${language.name}: calls in ${language.name} need a synthesizer that does (TTS_PROVIDER).`;
    }
    const offlineVoice = speakers.some((provider) => LOCAL_SYNTHESIZERS.includes(provider.code) && (provider.languageCodes ?? []).includes(language.iso2));
    services.set(language.id, { offline: heard && offered.offlineRecognizer === true && offlineVoice, available: reason === null, reason });
  }
  return services;
}

/** The synthesizer providers that run on this machine (the offline stack). */
const LOCAL_SYNTHESIZERS = ['espeak', 'piper'];

/**
 * Public voices and the user's own, optionally for one engine mode and one language (multilingual voices
 * included), and only those this deployment can speak when `offered` says what it serves.
 */
export async function listVoices(
  knex: Knex, userId: number, filter: { mode?: VoiceMode | undefined; languageId?: number | undefined }, offered?: OfferedSpeech,
): Promise<Voice[]> {
  const query = Voice.query(knex)
    .where((scope) => scope.whereNull('userId').orWhere({ userId }))
    .orderBy('id');
  if (offered) {
    query.where((scope) => {
      scope.whereIn('synthesizerProviderId', SynthesizerProvider.query(knex).select('id').whereIn('code', offered.synthesizers));
      if (offered.realtime) scope.orWhere({ mode: 'multimodal' });
    });
  }
  if (filter.mode) query.where({ mode: filter.mode });
  if (filter.languageId !== undefined) {
    const languageId = filter.languageId;
    query.where((scope) => scope.where({ languageId }).orWhereNull('languageId'));
  }
  return query;
}

export async function listLanguages(knex: Knex): Promise<Language[]> {
  return Language.query(knex).orderBy('id');
}

export async function listModels(knex: Knex, type: ModelType): Promise<LanguageModel[]> {
  return LanguageModel.query(knex).where({ type }).orderBy('id');
}

async function languageOrFail(knex: Knex, languageId: number): Promise<Language> {
  const language = await Language.query(knex).findById(languageId);
  if (!language) throw ValidationError.of('language_id', 'The selected language id is invalid.');
  return language;
}

// Providers that speak a language: those listing its code, and those that speak every language (null).
const SPEAKS = '(language_codes is null or language_codes @> jsonb_build_array(?::text))';

export async function listSynthesizerProviders(knex: Knex, languageId?: number, offered?: OfferedSpeech): Promise<SynthesizerProvider[]> {
  const query = SynthesizerProvider.query(knex).orderBy('id');
  if (offered) query.whereIn('code', offered.synthesizers);
  if (languageId !== undefined) query.whereRaw(SPEAKS, [(await languageOrFail(knex, languageId)).iso2]);
  return query;
}

export async function listTranscriberProviders(knex: Knex, languageId?: number, offered?: OfferedSpeech): Promise<TranscriberProvider[]> {
  const query = TranscriberProvider.query(knex).orderBy('id');
  if (offered) query.whereIn('code', offered.transcribers);
  if (languageId !== undefined) query.whereRaw(SPEAKS, [(await languageOrFail(knex, languageId)).iso2]);
  return query;
}

/** The first transcriber (lowest id) that speaks the language: the default when an assistant names none. */
export async function defaultTranscriber(knex: Knex, language: Language): Promise<TranscriberProvider | undefined> {
  return (await listTranscriberProviders(knex, language.id))[0];
}
