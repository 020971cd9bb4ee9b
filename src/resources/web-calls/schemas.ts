import { Type } from '@sinclair/typebox';
import { IdField } from '../../api/schemas.ts';
import { MESSAGES } from '../../api/validation.ts';

const Variables = Type.Record(Type.String(), Type.Unknown(), {
  description: "Values for {{name}} placeholders in the prompt and initial message, merged over the assistant's own.",
});

export const CreateWebCallBody = Type.Object({
  assistant_id: IdField({ description: "The assistant's id." }),
  variables: Type.Optional(Variables),
}, { additionalProperties: false });

export const CreatePublicWebCallBody = Type.Object({
  assistant_id: Type.String({
    minLength: 1,
    maxLength: 64,
    description: "The assistant's UUID.",
    [MESSAGES]: { required: 'assistant_id is required', minLength: 'assistant_id is required' },
  }),
  variables: Type.Optional(Variables),
}, { additionalProperties: false });

export const CreatedWebCall = Type.Object({
  message: Type.Literal('Web call created successfully'),
  data: Type.Object({
    call_id: Type.Integer(),
    status: Type.Literal('initiated'),
    websocket_url: Type.String({
      description: 'The media WebSocket of the call (Twilio Media Streams messages), usable once within 60 seconds.',
      examples: ['wss://voice.example.com:8081/media/web-call?token=Qm9vdGhzIGFuZCBiYWxsb29ucw'],
    }),
  }),
}, { title: 'CreatedWebCall' });
