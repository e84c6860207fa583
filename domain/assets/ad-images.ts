import { randomUUID } from 'node:crypto';
import pLimit from 'p-limit';
import { sha256Hex } from '../../lib/hash';
import type { AssetStore } from '../../lib/asset-store';
import { config } from '../../lib/config';
import { executeSql, lockForTransaction, type Db, type SqlExecutor } from '../../lib/db';
import { DomainError } from '../errors';
import { fetchImageBytes } from '../uploads/guarded-fetch';
import { inspectImage, MAX_UPLOAD_BYTES, type ImageInfo } from '../uploads/image-inspect';

/** How an ad names its image on create or replace: exactly one of the two. */
export interface ImageSource {
  file_id?: string;
  image_url?: string;
}

export interface LoadedImage extends ImageInfo {
  /** The bytes until they are stored (see createAdAsset); null from then on, so they can be freed. */
  bytes: Buffer | null;
  sizeBytes: number;
  sha256: string;
}

export interface ImageLoaderOptions {
  /** Test-only: let image_url reach loopback (see domain/uploads/guarded-fetch.ts). */
  allowLoopback?: boolean;
  timeoutMs?: number;
}

/** Re-labels an image error with the caller's parameter path (`creative.image_url`, ...). */
function withParam(err: unknown, param: string): never {
  throw err instanceof DomainError ? err.withParam(param) : err;
}

/**
 * The bytes of an ad's image, from the organization's upload (`file_id`) or by a
 * guarded download (`image_url`), checked as an upload is. Null when the
 * creative names no image. `paramPrefix` is the creative's path in the request.
 */
export async function loadAdImage(
  db: Db,
  store: AssetStore,
  organizationId: string,
  source: ImageSource,
  paramPrefix: string,
  options: ImageLoaderOptions = {},
): Promise<LoadedImage | null> {
  if (source.file_id !== undefined && source.image_url !== undefined) {
    throw new DomainError('invalid_value', 'Send either file_id or image_url, not both', `${paramPrefix}.file_id`);
  }
  let bytes: Buffer;
  if (source.file_id !== undefined) {
    const param = `${paramPrefix}.file_id`;
    const upload = await db.upload.findFirst({ where: { fileId: source.file_id, organizationId } });
    const stored = upload ? await store.get(upload.fileId) : null;
    if (!stored) throw new DomainError('invalid_value', 'No such file_id; upload the image first', param);
    bytes = stored;
  } else if (source.image_url !== undefined) {
    const param = `${paramPrefix}.image_url`;
    bytes = await fetchImageBytes(source.image_url, {
      maxBytes: MAX_UPLOAD_BYTES,
      timeoutMs: options.timeoutMs ?? 10_000,
      allowLoopback: options.allowLoopback ?? config.imageFetch.allowLoopback,
      loopbackOnly: config.imageFetch.loopbackOnly,
    }).catch((err) => withParam(err, param));
  } else {
    return null;
  }
  const info = await inspectImage(bytes).catch((err) => withParam(err, `${paramPrefix}.${source.file_id !== undefined ? 'file_id' : 'image_url'}`));
  return { ...info, bytes, sizeBytes: bytes.length, sha256: sha256Hex(bytes) };
}

/** Loads an ad's image for a creative at `paramPrefix`; null when it names none. */
export type ImageLoader = (source: ImageSource, paramPrefix: string) => Promise<LoadedImage | null>;

/** Image downloads (and re-reads of uploads) one request runs at once. */
export const IMAGE_LOAD_CONCURRENCY = 4;

/**
 * The image loader of one request: each distinct file_id or image_url is
 * loaded, checked and decoded once, however many ads name it (they share the
 * one LoadedImage, so its bytes are held once and stored once), and at most
 * IMAGE_LOAD_CONCURRENCY loads run at a time. Errors carry each caller's own
 * parameter path.
 */
export function createImageLoader(db: Db, store: AssetStore, organizationId: string, options: ImageLoaderOptions = {}): ImageLoader {
  const limit = pLimit(IMAGE_LOAD_CONCURRENCY);
  const loads = new Map<string, Promise<LoadedImage | null>>();
  return (source, paramPrefix) => {
    const field = source.file_id !== undefined ? 'file_id' : 'image_url';
    if (source.file_id !== undefined && source.image_url !== undefined) {
      return Promise.reject(new DomainError('invalid_value', 'Send either file_id or image_url, not both', `${paramPrefix}.file_id`));
    }
    if (source.file_id === undefined && source.image_url === undefined) return Promise.resolve(null);
    const key = source.file_id !== undefined ? `file:${source.file_id}` : `url:${source.image_url}`;
    let load = loads.get(key);
    if (!load) {
      load = limit(() => loadAdImage(db, store, organizationId, source, '', options));
      load.catch(() => undefined); // reported to each caller below
      loads.set(key, load);
    }
    return load.catch((err) => withParam(err, `${paramPrefix}.${field}`));
  };
}

export const assetKey = (asset: { sha256: string; ext: string }) => `assets/${asset.sha256}.${asset.ext}`;

/** The stable public URL an ad's `image_url` reads back. */
export const assetUrl = (asset: { sha256: string; ext: string }) => `${config.api.publicUrl}/${assetKey(asset)}`;

/**
 * Serializes writers and the garbage collector of one content hash, so bytes
 * are never deleted between a writer's put and its commit. Transaction-scoped.
 */
async function lockHash(sql: SqlExecutor, sha256: string): Promise<void> {
  await lockForTransaction(sql, `asset:${sha256}`);
}

/**
 * Stores an ad's own asset: the bytes under their content hash (shared by
 * identical images), and an Asset row. Must run inside the transaction that
 * links the asset to its ad.
 */
export async function createAdAsset(sql: SqlExecutor, store: AssetStore, organizationId: string, image: LoadedImage): Promise<string> {
  // Held to commit (advisory locks are re-entrant), so bytes put by an earlier
  // ad of this transaction cannot be collected before it commits.
  await lockHash(sql, image.sha256);
  if (image.bytes) {
    // Ads sharing an image share this object: the bytes are written once, then let go.
    await store.put(assetKey(image), image.bytes);
    image.bytes = null;
  }
  const id = randomUUID();
  await executeSql(
    sql,
    `INSERT INTO assets (id, organization_id, sha256, ext, mime, width, height, size_bytes)
     VALUES ($1::uuid, $2::uuid, $3, $4, $5, $6::int, $7::int, $8::int)`,
    [id, organizationId, image.sha256, image.ext, image.mime, image.width, image.height, image.sizeBytes],
  );
  return id;
}

/**
 * Deletes assets: first the bytes of every hash no other asset uses, then the
 * rows. In that order a failure part-way leaves the rows, so a retry (sagas
 * retry compensations) finds them again and finishes; nothing leaks.
 */
export async function deleteAssets(db: Db, store: AssetStore, assetIds: string[]): Promise<void> {
  if (assetIds.length === 0) return;
  const assets = await db.asset.findMany({ where: { id: { in: assetIds } }, select: { sha256: true, ext: true } });
  await garbageCollect(db, store, assets, assetIds);
  await db.asset.deleteMany({ where: { id: { in: assetIds } } });
}

/**
 * Removes stored bytes of these hashes unless an asset row (other than
 * `excluding`, which are about to go) still references them.
 */
export async function garbageCollect(db: Db, store: AssetStore, assets: { sha256: string; ext: string }[], excluding: string[] = []): Promise<void> {
  const unique = new Map(assets.map((a) => [assetKey(a), a]));
  for (const asset of unique.values()) {
    await db.$transaction(async (tx) => {
      await lockHash(tx, asset.sha256);
      const stillUsed = await tx.asset.count({ where: { sha256: asset.sha256, ext: asset.ext, id: { notIn: excluding } } });
      if (stillUsed === 0) await store.delete(assetKey(asset));
    });
  }
}
