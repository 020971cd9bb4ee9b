import Koa from 'koa';
import Router from '@koa/router';
import type { Config } from '../config.ts';
import type { Knex } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import type { TemporalClient } from '../temporal/client.ts';
import { healthRoutes } from './health.ts';
import { errorHandler } from './middleware/errors.ts';
import { requestContext } from './middleware/request-context.ts';

export interface AppDeps {
  config: Config;
  logger: Logger;
  knex: Knex;
  temporal: TemporalClient;
}

/** The Koa application: request context first, then the error mapper, then the routes under `/api`. */
export function createApp(deps: AppDeps): Koa {
  const app = new Koa({ proxy: true });
  app.use(requestContext(deps.logger));
  app.use(errorHandler());

  const api = new Router({ prefix: '/api' });
  const health = healthRoutes({ knex: deps.knex, temporal: deps.temporal });
  api.use(health.routes(), health.allowedMethods());
  app.use(api.routes());
  app.use(api.allowedMethods());
  return app;
}
