import { Model } from 'objection';
import type { StoredBuiltinTool } from './builtin-tools.ts';

export interface PostCallField {
  name: string;
  type: 'string' | 'number' | 'bool';
  description: string;
}

export type FillerConfig = Partial<Record<'positive' | 'negative' | 'question' | 'neutral', string[]>>;

/** Every setting of an assistant, in the current spelling; the legacy spelling is mapped onto it. */
export interface AssistantSettings {
  name: string;
  type: 'inbound' | 'outbound';
  mode: 'pipeline' | 'multimodal';
  status: 'active' | 'inactive';
  voiceId: number | null;
  languageId: number | null;
  secondaryLanguageIds: number[];
  llmModelId: number | null;
  multimodalModelId: number | null;
  chatLlmFallbackId: number | null;
  synthesizerProviderId: number | null;
  transcriberProviderId: number | null;
  phoneNumberId: number | null;
  knowledgebaseId: number | null;
  knowledgebaseMode: 'function_call' | 'prompt' | null;
  /** The caller's folder the assistant is in; null: uncategorized. */
  folderId: number | null;
  timezone: string;
  initialMessage: string;
  systemPrompt: string;
  variables: Record<string, string | number | boolean | null>;
  tools: StoredBuiltinTool[];
  postCallEvaluation: boolean;
  postCallSchema: PostCallField[];
  ttsEmotionEnabled: boolean;
  voiceStability: number;
  voiceSimilarity: number;
  speechSpeed: number;
  llmTemperature: number;
  turnDetectionThreshold: number | null;
  allowInterruptions: boolean;
  fillers: boolean;
  fillerConfig: FillerConfig | null;
  record: boolean;
  enableNoiseCancellation: boolean;
  waitForCustomer: boolean;
  maxDuration: number;
  maxSilenceDuration: number;
  maxInitialSilenceDuration: number | null;
  ringingTime: number;
  reengagementInterval: number;
  reengagementPrompt: string | null;
  endCallOnVoicemail: boolean;
  voiceMailMessage: string | null;
  endpointType: 'vad' | 'ai';
  endpointSensitivity: number;
  interruptSensitivity: number;
  minInterruptWords: number | null;
  ambientSound: string;
  ambientSoundVolume: number;
  isWebhookActive: boolean;
  webhookUrl: string | null;
  sendWebhookOnlyOnCompleted: boolean;
  includeRecordingInWebhook: boolean;
  conversationInactivityTimeout: number;
  conversationEndedRetrigger: boolean;
  conversationEndedWebhookUrl: string | null;
  inboundWebhookUrl: string | null;
}

/** The documented defaults of every optional setting (anchor section 15). */
export const DEFAULT_SETTINGS = {
  status: 'active',
  secondaryLanguageIds: [],
  chatLlmFallbackId: null,
  synthesizerProviderId: null,
  transcriberProviderId: null,
  phoneNumberId: null,
  knowledgebaseId: null,
  knowledgebaseMode: null,
  folderId: null,
  variables: {},
  tools: [],
  postCallEvaluation: true,
  postCallSchema: [],
  ttsEmotionEnabled: true,
  voiceStability: 0.7,
  voiceSimilarity: 0.5,
  speechSpeed: 1,
  llmTemperature: 0.1,
  turnDetectionThreshold: null,
  allowInterruptions: true,
  fillers: false,
  fillerConfig: null,
  record: false,
  enableNoiseCancellation: true,
  waitForCustomer: false,
  maxDuration: 600,
  maxSilenceDuration: 40,
  maxInitialSilenceDuration: null,
  ringingTime: 30,
  reengagementInterval: 30,
  reengagementPrompt: null,
  endCallOnVoicemail: true,
  voiceMailMessage: null,
  endpointType: 'vad',
  endpointSensitivity: 0.5,
  interruptSensitivity: 0.5,
  minInterruptWords: null,
  ambientSound: 'off',
  ambientSoundVolume: 0.5,
  isWebhookActive: false,
  webhookUrl: null,
  sendWebhookOnlyOnCompleted: true,
  includeRecordingInWebhook: true,
  conversationInactivityTimeout: 30,
  conversationEndedRetrigger: false,
  conversationEndedWebhookUrl: null,
  inboundWebhookUrl: null,
} satisfies Partial<AssistantSettings>;

export const JSON_SETTINGS = ['secondaryLanguageIds', 'variables', 'tools', 'postCallSchema', 'fillerConfig'] as const;

// Declaration merging gives the model every setting as a field without repeating the list.
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface Assistant extends AssistantSettings {}
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class Assistant extends Model {
  static override tableName = 'assistants';
  static override jsonAttributes = [...JSON_SETTINGS];

  declare id: number;
  declare uuid: string;
  declare userId: number;
  declare createdAt: Date;
  declare updatedAt: Date;
}
