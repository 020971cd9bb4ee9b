/**
 * The environment a benchmark runs the whole platform in, in its own process (bench/dial.ts,
 * bench/voice/platform.ts): production settings over the process's environment, a fresh APP_KEY, free ports on
 * the loopback, the bench's data directory, a rate limit no bench reaches, and the fake language model.
 */
import { randomBytes } from 'node:crypto';
import { freePort } from '../test/support/ports.ts';

export interface BenchEnv {
  /** For loadConfig: the process's environment with the bench's settings over it, then `extra`. */
  env: Record<string, string | undefined>;
  /** The api role's `http://127.0.0.1:<port>`. */
  baseUrl: string;
  /** The deployment's APP_KEY, from which its keys (the sandbox carrier's, say) derive. */
  appKey: string;
}

export async function benchEnv(options: { dataDir: string; llmUrl: string; extra?: Record<string, string> }): Promise<BenchEnv> {
  const [port, mediaPort, temporalPort, temporalUiPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const appKey = randomBytes(32).toString('base64');
  const baseUrl = `http://127.0.0.1:${port}`;
  const env = {
    ...process.env,
    NODE_ENV: 'production',
    APP_KEY: appKey,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'error',
    LOG_FORMAT: 'json',
    DATA_DIR: options.dataDir,
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: baseUrl,
    MEDIA_PORT: String(mediaPort),
    TEMPORAL_PORT: String(temporalPort),
    TEMPORAL_UI_PORT: String(temporalUiPort),
    RATE_LIMIT_PER_MINUTE: '1000000',
    LLM_BASE_URL: options.llmUrl,
    LLM_API_KEY: 'bench',
    ...options.extra,
  };
  return { env, baseUrl, appKey };
}
