import { Type } from '@sinclair/typebox';
import type { Knex } from 'knex';
import { defineRoute, type RouteDefinition } from '../../api/routing.ts';
import { IdInteger, nullable } from '../../api/schemas.ts';
import type { LanguageModel, Voice } from './model.ts';
import { languageServices, listLanguages, listModels, listSynthesizerProviders, listTranscriberProviders, listVoices, type OfferedSpeech } from './service.ts';

const VoiceItem = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  mode: Type.String({ enum: ['pipeline', 'multimodal'] }),
  language_id: nullable(Type.Integer({ description: 'Null for a multilingual voice.' })),
  gender: nullable(Type.String()),
  preview_url: nullable(Type.String()),
  accent: nullable(Type.String()),
  age: nullable(Type.String()),
  synthesizer_provider_id: nullable(Type.Integer({ description: 'Null for the voices of speech-to-speech models.' })),
}, { title: 'Voice' });

const LanguageItem = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  iso_2: Type.String(),
  offline: Type.Boolean({ description: 'This deployment hears and speaks it with its offline speech stack, no hosted provider involved.' }),
  available: Type.Boolean({ description: 'This deployment can hold a pipeline call in it: its speech-to-text hears it and one of its voices speaks it.' }),
  unavailable_reason: nullable(Type.String({ description: 'Why it is not available (what it would need); null when it is.' })),
}, { title: 'Language' });
const ModelItem = Type.Object({ id: Type.Integer(), name: Type.String(), code: Type.Optional(Type.String()) }, { title: 'Model' });
const ProviderItem = Type.Object({ id: Type.Integer(), name: Type.String(), code: Type.String() }, { title: 'Provider' });

const LanguageQuery = Type.Object({
  language_id: Type.Optional(IdInteger({ description: 'Only providers that speak this language.' })),
});

function voiceItem(voice: Voice) {
  return {
    id: voice.id,
    name: voice.name,
    mode: voice.mode,
    language_id: voice.languageId,
    gender: voice.gender,
    preview_url: voice.previewUrl,
    accent: voice.accent,
    age: voice.age,
    synthesizer_provider_id: voice.synthesizerProviderId,
  };
}

function modelItem(model: LanguageModel) {
  return model.type === 'multimodal' ? { id: model.id, name: model.name, code: model.code } : { id: model.id, name: model.name };
}

const provider = ({ id, name, code }: { id: number; name: string; code: string }) => ({ id, name, code });

/** The catalogs an assistant is built from; every list is a bare array. */
export function catalogRoutes({ knex, offered }: { knex: Knex; offered: OfferedSpeech }): RouteDefinition[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/user/assistants/voices',
      tag: 'Assistants',
      summary: 'Voices this deployment can speak: public ones and the caller\'s own, by engine mode and language',
      auth: 'bearer',
      query: Type.Object({
        mode: Type.Optional(Type.Union([Type.Literal('pipeline'), Type.Literal('multimodal')], { description: 'Only voices of this engine mode.' })),
        language_id: Type.Optional(IdInteger({ description: 'Only voices of this language, and multilingual ones.' })),
      }),
      responses: { 200: { description: 'The voices', schema: Type.Array(VoiceItem) } },
      async handle({ auth, query }) {
        return { body: (await listVoices(knex, auth.user.id, { mode: query.mode, languageId: query.language_id }, offered)).map(voiceItem) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/user/assistants/languages',
      tag: 'Assistants',
      summary: 'Languages an assistant can speak, and whether this deployment serves each offline or needs a hosted provider',
      auth: 'bearer',
      responses: { 200: { description: 'The languages', schema: Type.Array(LanguageItem) } },
      async handle() {
        const languages = await listLanguages(knex);
        const services = await languageServices(knex, languages, offered);
        return {
          body: languages.map(({ id, name, iso2 }) => {
            const service = services.get(id);
            return { id, name, iso_2: iso2, offline: service?.offline ?? false, available: service?.available ?? true, unavailable_reason: service?.reason ?? null };
          }),
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/user/assistants/models',
      tag: 'Assistants',
      summary: 'Language models: chat models for pipeline assistants, or speech-to-speech models',
      auth: 'bearer',
      query: Type.Object({
        type: Type.Optional(Type.Union([Type.Literal('llm'), Type.Literal('multimodal')], { default: 'llm', description: '`llm` (default) or `multimodal`.' })),
      }),
      responses: { 200: { description: 'The models; multimodal ones carry a `code`', schema: Type.Array(ModelItem) } },
      async handle({ query }) {
        return { body: (await listModels(knex, query.type ?? 'llm')).map(modelItem) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/user/assistants/synthesizer-providers',
      tag: 'Assistants',
      summary: 'Text-to-speech providers this deployment serves, optionally those that speak one language',
      auth: 'bearer',
      query: LanguageQuery,
      responses: { 200: { description: 'The providers', schema: Type.Array(ProviderItem) } },
      async handle({ query }) {
        return { body: (await listSynthesizerProviders(knex, query.language_id, offered)).map(provider) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/user/assistants/transcriber-providers',
      tag: 'Assistants',
      summary: 'Speech-to-text providers this deployment serves, optionally those that speak one language',
      auth: 'bearer',
      query: LanguageQuery,
      responses: { 200: { description: 'The providers', schema: Type.Array(ProviderItem) } },
      async handle({ query }) {
        return { body: (await listTranscriberProviders(knex, query.language_id, offered)).map(provider) };
      },
    }),
  ];
}
