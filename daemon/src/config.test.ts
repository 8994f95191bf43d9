import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';

describe('loadConfig', () => {
  it('has documented defaults: loopback, 8080, ./data, embedded store', () => {
    const result = loadConfig({});
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.config).toMatchObject({ host: '127.0.0.1', port: 8080, basePath: '', dataDir: path.resolve('./data') });
    expect(result.config.store).toEqual({ kind: 'sqlite', file: path.resolve('./data/sac.sqlite') });
  });

  it('selects MongoDB when SAC_MONGODB_URI is set', () => {
    const result = loadConfig({ SAC_MONGODB_URI: 'mongodb://127.0.0.1:27017/', SAC_MONGODB_DB: 'soc' });
    expect(result.ok && result.config.store).toEqual({ kind: 'mongodb', uri: 'mongodb://127.0.0.1:27017/', dbName: 'soc' });
  });

  it.each([
    ['mongodb://127.0.0.1:27017/sac_prod', undefined, 'sac_prod'],
    ['mongodb://u:p%40ss@h1:27017,h2:27018/site-b?replicaSet=rs0&authSource=admin', undefined, 'site-b'],
    ['mongodb+srv://cluster.example.net/archive%2Db?retryWrites=true', undefined, 'archive-b'],
    ['mongodb://127.0.0.1:27017/sac_prod', 'override', 'override'],
    ['mongodb://127.0.0.1:27017/?replicaSet=rs0', undefined, 'sac'],
    ['mongodb://127.0.0.1:27017', undefined, 'sac'],
  ])('takes the database from %s unless SAC_MONGODB_DB=%s is set: %s', (uri, db, expected) => {
    const result = loadConfig({ SAC_MONGODB_URI: uri, ...(db ? { SAC_MONGODB_DB: db } : {}) });
    expect(result.ok && result.config.store).toEqual({ kind: 'mongodb', uri, dbName: expected });
  });

  it('refuses a database name MongoDB cannot hold, without echoing the secret URI', () => {
    const uri = 'mongodb://admin:s3cret@127.0.0.1:27017/bad.name';
    const result = loadConfig({ SAC_MONGODB_URI: uri });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toEqual([expect.stringMatching(/^SAC_MONGODB_URI: the database in its path/)]);
    expect(result.problems.join('\n')).not.toContain('s3cret');
    expect(loadConfig({ SAC_MONGODB_URI: 'mongodb://127.0.0.1/', SAC_MONGODB_DB: 'a/b' }).ok).toBe(false);
  });

  it('reads secrets from <KEY>_FILE without the trailing newline', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sac-config-'));
    const file = path.join(dir, 'key');
    writeFileSync(file, 'sac_FromAFileFromAFileFromAFile1234\n');
    const result = loadConfig({ SAC_BOOTSTRAP_API_KEY_FILE: file });
    expect(result.ok && result.config.bootstrapApiKey).toBe('sac_FromAFileFromAFileFromAFile1234');
  });

  it('reports every problem at once', () => {
    const result = loadConfig({
      SAC_PORT: '99999',
      SAC_MONGODB_URI: 'postgres://x',
      SAC_BASE_PATH: 'sac/',
      SAC_LOG_LEVEL: 'loud',
      SAC_BOOTSTRAP_API_KEY: 'short',
      SAC_BOOTSTRAP_API_KEY_FILE: '/nonexistent',
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const keys = result.problems.map((p) => p.split(':')[0]);
    expect(keys).toEqual(
      expect.arrayContaining(['SAC_PORT', 'SAC_MONGODB_URI', 'SAC_BASE_PATH', 'SAC_LOG_LEVEL', 'SAC_BOOTSTRAP_API_KEY']),
    );
  });
});
