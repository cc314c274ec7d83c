import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { projectRoot } from '../support/processes.ts';

/**
 * compose.yaml cannot be run here (no Docker engine on the build machines or in CI), so its
 * topology is checked against the code it runs: services and images, the environment names the
 * service really reads, ports, start order with health conditions, and commands that exist.
 */
interface Service {
  image?: string;
  build?: string;
  command?: string[];
  entrypoint?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  stop_grace_period?: string;
}
const compose = parse(fs.readFileSync(path.join(projectRoot, 'compose.yaml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};
const services = compose.services;
const packageJson = JSON.parse(fs.readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};

/** Every environment name the service's configuration modules read (`src/config.ts` and its parts). */
function settingsReadByTheService(): Set<string> {
  const files = ['src/config.ts', 'src/videos/config.ts', 'src/shopify/config.ts', 'src/billing/shopify-config.ts'].map(
    (file) => fs.readFileSync(path.join(projectRoot, file), 'utf8'),
  );
  const names = new Set<string>();
  for (const text of files) {
    // Keys of the zod environment schemas (`WORKERS: z.enum(…)`), and names used elsewhere in them.
    for (const [, name] of text.matchAll(/^\s*([A-Z][A-Z0-9_]*):/gm)) names.add(name!);
    for (const [name] of text.matchAll(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g)) names.add(name);
  }
  // carrierSettings('UPS', …) builds UPS_BASE_URL, UPS_CLIENT_ID, … from a prefix.
  for (const carrier of ['UPS', 'FEDEX', 'USPS'])
    for (const suffix of ['BASE_URL', 'CLIENT_ID', 'CLIENT_SECRET', 'QUOTA']) names.add(`${carrier}_${suffix}`);
  return names;
}

describe('compose.yaml', () => {
  it('runs PostgreSQL 15, Redis 7, MinIO with its bucket, Mailpit, and web and worker from the Dockerfile', () => {
    expect(Object.keys(services).sort()).toEqual(
      ['mailpit', 'minio', 'minio-bucket', 'postgres', 'redis', 'web', 'worker'].sort(),
    );
    expect(services.postgres!.image).toMatch(/^postgres:15[.-]/);
    expect(services.redis!.image).toMatch(/^redis:7[.-]/);
    expect(services.minio!.image).toMatch(/^minio\/minio:/);
    expect(services.mailpit!.image).toMatch(/^axllent\/mailpit:/);
    expect(services.web!.build).toBe('.');
    expect(services.worker!.build).toBe('.');
    expect(services['minio-bucket']!.entrypoint!.join(' ')).toMatch(/mc mb --ignore-existing local\/doorstep-videos/);
  });

  it('pins every image to a version (no `latest`, no bare name)', () => {
    for (const [name, service] of Object.entries(services)) {
      if (!service.image) continue;
      expect(service.image, name).toMatch(/:[^:]+$/);
      expect(service.image, name).not.toMatch(/:latest$/);
    }
  });

  it('gives Redis the persistence BullMQ needs: noeviction and the append-only file', () => {
    const command = services.redis!.command!.join(' ');
    expect(command).toContain('--maxmemory-policy noeviction');
    expect(command).toContain('--appendonly yes');
  });

  it('sets only environment names the service reads, pointing at the services that exist', () => {
    const known = settingsReadByTheService();
    for (const role of ['web', 'worker']) {
      const env = services[role]!.environment!;
      for (const name of Object.keys(env)) expect(known.has(name), `${role}: ${name}`).toBe(true);
      expect(new URL(env.DATABASE_URL!).hostname).toBe('postgres');
      expect(new URL(env.REDIS_URL!).hostname).toBe('redis');
      expect(env.SMTP_URL).toBe('smtp://mailpit:1025');
      expect(new URL(env.S3_ENDPOINT!).hostname).toBe('minio');
      expect(env.S3_BUCKET).toBe('doorstep-videos');
      expect(new URL(env.CARRIER_SANDBOX_URL!).hostname).toBe('web');
      // The credentials MinIO was started with.
      expect(env.S3_ACCESS_KEY_ID).toBe(services.minio!.environment!.MINIO_ROOT_USER);
      expect(env.S3_SECRET_ACCESS_KEY).toBe(services.minio!.environment!.MINIO_ROOT_PASSWORD);
    }
    expect(services.web!.environment!.WORKERS).toBe('off');
  });

  it('publishes Doorstep on 3000, Mailpit on 8025 (web) and 1025 (SMTP), MinIO on 9000', () => {
    expect(services.web!.ports).toContain('3000:3000');
    expect(services.web!.environment!.PORT).toBe('3000');
    expect(services.mailpit!.ports).toEqual(expect.arrayContaining(['8025:8025', '1025:1025']));
    expect(services.minio!.ports).toContain('9000:9000');
    expect(new URL(services.web!.environment!.S3_PUBLIC_ENDPOINT!).port).toBe('9000');
  });

  it('starts web and worker only once what they need is healthy (or, for the bucket, done)', () => {
    for (const role of ['web', 'worker']) {
      const dependsOn = services[role]!.depends_on!;
      for (const [dependency, { condition }] of Object.entries(dependsOn)) {
        expect(services[dependency], `${role} → ${dependency}`).toBeDefined();
        if (dependency === 'minio-bucket') expect(condition).toBe('service_completed_successfully');
        else {
          expect(condition, `${role} → ${dependency}`).toBe('service_healthy');
          expect(services[dependency]!.healthcheck, `${dependency} has a healthcheck`).toBeDefined();
        }
      }
      expect(Object.keys(dependsOn)).toEqual(expect.arrayContaining(['postgres', 'redis', 'mailpit', 'minio-bucket']));
    }
    expect(services.worker!.depends_on!.web).toEqual({ condition: 'service_healthy' });
    expect(services.web!.healthcheck!.test.join(' ')).toContain('/healthz');
  });

  it('runs commands that exist: the image default for web, the npm run worker entry for worker', () => {
    const workerCommand = services.worker!.command!;
    expect(workerCommand).toEqual(['node', '--import', 'tsx', 'bin/worker.ts']);
    expect(packageJson.scripts.worker).toBe('node --import tsx bin/worker.ts');
    expect(fs.existsSync(path.join(projectRoot, 'bin/worker.ts'))).toBe(true);
    expect(services.web!.command).toBeUndefined(); // the Dockerfile's CMD: bin/start.ts
  });

  it('lets Docker wait longer than the graceful shutdown before it kills', () => {
    for (const role of ['web', 'worker']) {
      const grace = Number(services[role]!.stop_grace_period!.replace(/s$/, '')) * 1000;
      expect(grace).toBeGreaterThan(Number(services[role]!.environment!.SHUTDOWN_TIMEOUT_MS));
    }
  });

  it('declares the volumes it mounts', () => {
    expect(Object.keys(compose.volumes).sort()).toEqual(['minio-data', 'postgres-data', 'redis-data']);
  });
});
