import { Model } from 'objection';

export class Language extends Model {
  static override tableName = 'languages';

  declare id: number;
  declare name: string;
  declare iso2: string;
  declare sttCode: string;
  declare ttsCode: string;
}

export type VoiceMode = 'pipeline' | 'multimodal';

export class Voice extends Model {
  static override tableName = 'voices';

  declare id: number;
  declare name: string;
  declare mode: VoiceMode;
  declare languageId: number | null;
  declare gender: string | null;
  declare accent: string | null;
  declare age: string | null;
  declare previewUrl: string | null;
  declare synthesizerProviderId: number | null;
  declare providerVoiceId: string;
  declare userId: number | null;
}

export type ModelType = 'llm' | 'multimodal';

export class LanguageModel extends Model {
  static override tableName = 'language_models';

  declare id: number;
  declare name: string;
  declare type: ModelType;
  declare code: string;
  declare provider: string;
  declare providerModel: string;
}

export class SynthesizerProvider extends Model {
  static override tableName = 'synthesizer_providers';

  declare id: number;
  declare name: string;
  declare code: string;
  declare languageCodes: string[] | null;
}

export class TranscriberProvider extends Model {
  static override tableName = 'transcriber_providers';

  declare id: number;
  declare name: string;
  declare code: string;
  declare languageCodes: string[] | null;
}
