import Koa from 'koa';
import Router from '@koa/router';
import type { Config } from '../config.ts';
import type { Knex } from '../db/database.ts';
import { systemClock, type Clock } from '../lib/clock.ts';
import type { Logger } from '../logger.ts';
import { describeEmbeddings } from '../providers/embeddings/index.ts';
import type { Providers } from '../providers/index.ts';
import { apiKeyRoutes } from '../resources/api-keys/routes.ts';
import { assistantRoutes } from '../resources/assistants/routes.ts';
import { authRoutes } from '../resources/auth/routes.ts';
import { tokenResolver } from '../resources/auth/tokens.ts';
import { catalogRoutes } from '../resources/catalogs/routes.ts';
import { conversationRoutes } from '../resources/conversations/routes.ts';
import { documentKeys } from '../knowledge/files.ts';
import { documentRoutes } from '../resources/documents/routes.ts';
import { knowledgebaseRoutes } from '../resources/knowledgebases/routes.ts';
import { phoneNumberAssignmentRoutes } from '../resources/phone-numbers/routes.ts';
import { toolRoutes } from '../resources/tools/routes.ts';
import { userRoutes } from '../resources/users/routes.ts';
import type { TemporalClient } from '../temporal/client.ts';
import { docsRoutes } from './docs.ts';
import { healthRoutes } from './health.ts';
import { authenticate } from './middleware/auth.ts';
import { jsonBody } from './middleware/body.ts';
import { corsPolicy } from './middleware/cors.ts';
import { errorHandler } from './middleware/errors.ts';
import { multipartBody } from './middleware/multipart.ts';
import { rateLimit } from './middleware/rate-limit.ts';
import { requestContext } from './middleware/request-context.ts';
import { buildOpenApiDocument } from './openapi.ts';
import { mountRoutes, type RouteDefinition } from './routing.ts';
import { webRoutes } from './web.ts';

export interface AppDeps {
  config: Config;
  logger: Logger;
  knex: Knex;
  temporal: TemporalClient;
  /** The adapters of this process, from createProviders. */
  providers: Providers;
  /** The system clock unless a test moves time itself. */
  clock?: Clock;
}

/** Every route of the API, relative to `/api`, in the order they are matched. */
export function apiRoutes(deps: AppDeps, document: () => Record<string, unknown>): RouteDefinition[] {
  const { knex, config } = deps;
  const { secrets, storage, embeddings } = deps.providers;
  return [
    ...healthRoutes({ knex, temporal: deps.temporal, embeddings: describeEmbeddings(config) }),
    ...docsRoutes(document),
    ...authRoutes({ knex, config, now: deps.clock ?? systemClock }),
    ...userRoutes({ knex }),
    ...apiKeyRoutes({ knex }),
    ...toolRoutes({ knex, secrets }),
    ...catalogRoutes({ knex }),
    ...phoneNumberAssignmentRoutes({ knex }),
    ...assistantRoutes({ knex, secrets, publicUrl: config.publicUrl }),
    ...knowledgebaseRoutes({ knex, temporal: deps.temporal, storage, embeddings, logger: deps.logger }),
    ...documentRoutes({ knex, temporal: deps.temporal, storage, logger: deps.logger }),
    ...conversationRoutes({
      knex,
      secrets,
      safeFetch: deps.providers.fetch,
      embeddings,
      model: deps.providers.llm,
      defaultModel: config.llm.defaultModel,
      logger: deps.logger,
      publicUrl: config.publicUrl,
    }),
  ];
}

const publicPaths = /^\/(api\/conversations(\/|$)|widget)/;

export interface Api {
  app: Koa;
  router: Router;
  routes: RouteDefinition[];
  openapi: Record<string, unknown>;
}

/** The Koa application: request context, error mapper and CORS first, then the routes under `/api`. */
export function createApp(deps: AppDeps): Api {
  const app = new Koa({ proxy: deps.config.http.trustProxy });
  app.use(requestContext(deps.logger));
  app.use(errorHandler());
  app.use(corsPolicy(deps.config.http.corsOrigins, (path) => publicPaths.test(path)));

  let openapi: Record<string, unknown> = {};
  const routes = apiRoutes(deps, () => openapi);
  openapi = buildOpenApiDocument(routes, { serverUrl: `${deps.config.publicUrl}/api`, version: '0.1.0' });

  const router = new Router({ prefix: '/api' });
  mountRoutes(router, routes, {
    authenticate: authenticate(tokenResolver(deps.knex, deps.clock ?? systemClock)),
    rateLimit: rateLimit(deps.config.http.rateLimitPerMinute),
    jsonBody: jsonBody(deps.config.http.bodyLimitBytes),
    multipartBody: multipartBody({
      storage: deps.providers.storage,
      maxFileBytes: 20 * 1024 * 1024,
      fileField: 'file',
      keyFor: documentKeys.upload,
      json: jsonBody(deps.config.http.bodyLimitBytes),
    }),
  });
  app.use(router.routes());
  app.use(router.allowedMethods());
  app.use(webRoutes().routes());
  return { app, router, routes, openapi };
}
