import { ConfigError } from './error.ts';

export type Env = Record<string, string | undefined>;

/** Typed values from the environment; each failure names its variable. */
export class Reader {
  private readonly env: Env;
  constructor(env: Env) {
    this.env = env;
  }

  string(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value === '' ? undefined : value;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if (!/^-?\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}".`);
    const value = Number(raw);
    if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}.`);
    return value;
  }

  port(name: string, fallback: number): number {
    return this.integer(name, fallback, 1, 65535);
  }

  boolean(name: string, fallback: boolean): boolean {
    const raw = this.string(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
    if (['0', 'false', 'no', 'off'].includes(raw)) return false;
    throw new ConfigError(name, `must be true or false, got "${raw}".`);
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(raw)) {
      throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${raw}".`);
    }
    return raw as T;
  }

  url(name: string, protocols: string[]): string | undefined {
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      throw new ConfigError(name, `must be a URL, got "${redact(raw)}".`);
    }
    if (!protocols.includes(parsed.protocol)) {
      throw new ConfigError(name, `must use ${protocols.join(' or ')}, got "${parsed.protocol}".`);
    }
    return raw;
  }

  /** A duration such as `30d`, `12h`, `15m`, `90s` or a bare number of seconds. */
  duration(name: string, fallbackSeconds: number): number {
    const raw = this.string(name);
    if (raw === undefined) return fallbackSeconds;
    const match = /^(\d+)\s*([smhd]?)$/.exec(raw);
    if (!match) throw new ConfigError(name, `must be a duration like 30d, 12h, 15m or 90s, got "${raw}".`);
    const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[match[2] as '' | 's' | 'm' | 'h' | 'd'];
    const seconds = Number(match[1]) * unit;
    if (seconds <= 0) throw new ConfigError(name, 'must be longer than zero.');
    return seconds;
  }

  usd(name: string, fallback: number): number {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if (!/^\d+(\.\d{1,6})?$/.test(raw)) throw new ConfigError(name, `must be an amount in USD like 5 or 2.50, got "${raw}".`);
    return Math.round(Number(raw) * 1_000_000);
  }

  bytes(name: string, fallback: number): number {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    const match = /^(\d+)\s*(b|kb|mb)?$/i.exec(raw);
    if (!match) throw new ConfigError(name, `must be a size like 1mb or 512kb, got "${raw}".`);
    const unit = { b: 1, kb: 1024, mb: 1024 * 1024 }[(match[2] ?? 'b').toLowerCase() as 'b' | 'kb' | 'mb'];
    return Number(match[1]) * unit;
  }

  list(name: string): string[] {
    return (this.string(name) ?? '').split(',').map((item) => item.trim()).filter(Boolean);
  }
}

function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

