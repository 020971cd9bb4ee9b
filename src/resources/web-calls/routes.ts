import { defineRoute, type RouteDefinition } from '../../api/routing.ts';
import { MessageBody, StatusErrorBody } from '../../api/schemas.ts';
import { CreatedWebCall, CreatePublicWebCallBody, CreateWebCallBody } from './schemas.ts';
import { createWebCall, type CreatedWebCall as Created, type WebCallDeps } from './service.ts';

function created(call: Created) {
  return {
    status: 201,
    body: { message: 'Web call created successfully', data: { call_id: call.callId, status: call.status, websocket_url: call.websocketUrl } },
  };
}

const description =
  'The call starts `initiated`; the browser opens `websocket_url` within 60 seconds (it works once) and speaks ' +
  'the Twilio Media Streams protocol over it. The call ends as the customer or the assistant hangs up, or at the ' +
  "assistant's max_call_duration or what the balance pays for beside the account's other calls in progress, " +
  "whichever is less; it is billed per started second. Past the plan's limit of calls at once, 429 with Retry-After.";

export function webCallRoutes(deps: WebCallDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/user/web-calls',
      tag: 'Calls',
      summary: 'Start a web call with one of your assistants',
      description,
      auth: 'bearer',
      body: CreateWebCallBody,
      errors: ['call_unaffordable', 'usage_limited', 'provider_unavailable'],
      responses: {
        201: { description: 'Created', schema: CreatedWebCall },
        404: { description: 'No such assistant of the caller', schema: MessageBody },
      },
      async handle({ auth, body }) {
        return created(await createWebCall(deps, { id: body.assistant_id, userId: auth.user.id }, body.variables ?? {}));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/web-calls',
      tag: 'Calls',
      summary: 'Start a web call with an assistant named by its UUID (public: the widget calls it)',
      description,
      auth: 'public',
      errorStyle: 'status',
      body: CreatePublicWebCallBody,
      errors: ['call_unaffordable', 'usage_limited', 'provider_unavailable'],
      responses: {
        201: { description: 'Created', schema: CreatedWebCall },
        404: { description: 'Assistant not found', schema: StatusErrorBody },
      },
      async handle({ body }) {
        return created(await createWebCall(deps, { uuid: body.assistant_id }, body.variables ?? {}));
      },
    }),
  ];
}
