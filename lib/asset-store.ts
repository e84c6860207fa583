import { promises as fs } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { config } from './config';
import { S3AssetStore } from './s3-asset-store';

/**
 * Where image bytes live. Keys are relative paths (`assets/<sha256>.<ext>`,
 * `uploads/<year>/<month>/<hex>.<ext>`). The local-folder store is the default;
 * an S3-compatible store implements the same interface.
 */
export interface AssetStore {
  put(key: string, bytes: Buffer): Promise<void>;
  /** Null when the key does not exist. */
  get(key: string): Promise<Buffer | null>;
  /** Deleting a missing key is not an error. */
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
}

const SAFE_KEY = /^(?:[a-z0-9]+\/)*[A-Za-z0-9_-]+\.(?:png|jpg|webp)$/;

export function assertSafeKey(key: string): void {
  if (!SAFE_KEY.test(key)) throw new Error(`unsafe asset key: ${key}`);
}

export class LocalAssetStore implements AssetStore {
  constructor(readonly root: string) {}

  private file(key: string): string {
    assertSafeKey(key);
    return path.join(this.root, key);
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    const target = this.file(key);
    await fs.mkdir(path.dirname(target), { recursive: true });
    // Write then rename, so a reader never sees half a file.
    const temp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    await fs.writeFile(temp, bytes);
    await fs.rename(temp, target);
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      return await fs.readFile(this.file(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await fs.rm(this.file(key), { force: true });
  }

  async exists(key: string): Promise<boolean> {
    return fs.access(this.file(key)).then(
      () => true,
      () => false,
    );
  }
}

/** An explicit folder always means the local store; otherwise ASSET_STORE decides. */
export function createAssetStore(root?: string): AssetStore {
  const { store, dir } = config.assets;
  if (root !== undefined || store === 'local') return new LocalAssetStore(root ?? dir);
  if (store !== 's3') throw new Error(`ASSET_STORE must be "local" or "s3", got "${store}"`);
  // Fail at start-up, not on the first upload.
  const { endpoint, bucket, region, accessKeyId, secretAccessKey } = config.assets.s3;
  const required = { S3_ENDPOINT: endpoint, S3_BUCKET: bucket, S3_ACCESS_KEY_ID: accessKeyId, S3_SECRET_ACCESS_KEY: secretAccessKey };
  const missing = Object.entries(required)
    .filter(([, value]) => !value)
    .map(([name]) => name);
  if (missing.length) throw new Error(`ASSET_STORE=s3 needs ${missing.join(', ')}`);
  return new S3AssetStore({ endpoint: endpoint!, bucket: bucket!, region, accessKeyId: accessKeyId!, secretAccessKey: secretAccessKey! });
}
