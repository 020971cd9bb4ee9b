import { ConfigError, loadConfig, loadEnvFile } from './config.ts';
import { createLogger } from './logger.ts';
import { startPlatform, type Role } from './platform.ts';

const roles: readonly Role[] = ['all', 'api', 'worker', 'media', 'sip'];

function banner(platform: Awaited<ReturnType<typeof startPlatform>>, dataDir: string, embeddedDb: boolean): string {
  const lines = [
    '',
    `  Parley is running (${platform.role === 'all' ? `api + worker + media${platform.sipAddress ? ' + sip' : ''}` : platform.role})`,
    ...(platform.apiUrl ? [`  Console      ${platform.apiUrl.replace(/\/api$/, '/app')}`, `  API          ${platform.apiUrl}`, `  API docs     ${platform.apiUrl}/docs`] : []),
    ...(platform.mediaUrl ? [`  Media        ${platform.mediaUrl}`] : []),
    ...(platform.sipAddress ? [`  SIP          ${platform.sipAddress} (UDP and TCP)`] : []),
    ...(platform.metricsUrl ? [`  Metrics      ${platform.metricsUrl}`] : []),
    `  Temporal     ${platform.temporalAddress}`,
    ...(platform.temporalUiUrl ? [`  Temporal UI  ${platform.temporalUiUrl}`] : []),
    `  Database     ${embeddedDb ? `embedded PGlite in ${dataDir}/pg` : 'PostgreSQL (DATABASE_URL)'}`,
    `  Data         ${dataDir}`,
    '',
    '  Ctrl-C stops everything.',
    '',
  ];
  return lines.join('\n');
}

async function main(): Promise<void> {
  const role = (process.argv[2] ?? 'all') as Role;
  if (!roles.includes(role)) throw new Error(`Unknown role "${role}": use one of ${roles.join(', ')}.`);
  loadEnvFile();
  const config = loadConfig();
  const logger = createLogger(config);
  const platform = await startPlatform({ config, logger, role });
  process.stdout.write(`${banner(platform, config.dataDir, !config.database.url)}\n`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn(`${signal} again: exiting without waiting`);
      process.exit(1);
    }
    stopping = true;
    logger.info(`${signal}: stopping`);
    platform.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'error while stopping');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`Configuration error: ${error.message}\n`);
  } else {
    process.stderr.write(`Parley could not start: ${error instanceof Error ? error.message : String(error)}\n`);
    if (process.env.LOG_LEVEL === 'debug' && error instanceof Error) process.stderr.write(`${error.stack}\n`);
  }
  process.exit(1);
});
