import { labelRoute } from '../../lib/http-metrics';
import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../../lib/hash';
import express, { Router, type Request, type Response } from 'express';
import { defineOperation, type Operation } from '../../lib/http/operations';
import { IMAGE_ERRORS } from '../creatives/image-errors';
import { z } from 'zod';
import type { AssetStore } from '../../lib/asset-store';
import { config } from '../../lib/config';
import type { Db } from '../../lib/db';
import { apiKeyAuthOf } from '../auth/api-key-auth';
import { JSON_BODY_LIMIT } from '../../lib/http/body';
import { DomainError } from '../../domain/errors';
import { fetchImageBytes } from '../../domain/uploads/guarded-fetch';
import { inspectImage, MAX_UPLOAD_BYTES } from '../../domain/uploads/image-inspect';
import { readFilePart } from './multipart';

export const uploadUrlSchema = z.strictObject({
  image_url: z.string().meta({ format: 'uri' }).describe('Public http(s) image URL that the service downloads'),
});
const uploadResponseSchema = z.object({ file_id: z.string() });

const neither = () => new DomainError('invalid_value', 'Send multipart/form-data with a `file` part, or JSON with `image_url`');

/** `uploads/<year>/<month>/<hex>.<ext>`: the spec's opaque file_id, also the storage key. */
function newFileId(ext: string, now = new Date()): string {
  const month = String(now.getUTCMonth() + 1).padStart(2, '0');
  return `uploads/${now.getUTCFullYear()}/${month}/${randomBytes(16).toString('hex')}.${ext}`;
}

/**
 * `POST /v1/upload`. It reads its own body: multipart is read as a stream with
 * the 5 MB cap, JSON (`image_url`) with the usual 1 MB limit.
 */
const parseJson = express.json({ limit: JSON_BODY_LIMIT });

export function uploadOperation(db: Db, store: AssetStore): Operation {
  return defineOperation({
    id: 'uploadImage',
    method: 'post',
    path: '/v1/upload',
    tag: 'Uploads',
    auth: 'apiKey',
    summary: 'Upload an image (PNG, JPEG or WebP, at most 5 MB): a multipart `file` part, or JSON `image_url` fetched by the service',
    rawBody: {
      'multipart/form-data': z.object({ file: z.string().meta({ format: 'binary' }) }),
      'application/json': uploadUrlSchema,
    },
    success: { status: 201, description: 'Stored; reference it as `file_id` in a chat_card creative', schema: uploadResponseSchema },
    errors: [...IMAGE_ERRORS, 'invalid_json', 'body_too_large'],
    handle: (_input, req, res) => receiveUpload(db, store, req, res),
  });
}

/** The image of one upload request, checked, stored and recorded. */
async function receiveUpload(db: Db, store: AssetStore, req: Request, res: Response): Promise<{ file_id: string }> {
  let bytes: Buffer;
  let param: 'file' | 'image_url';
  if (req.is('multipart/form-data')) {
    param = 'file';
    // A failed multipart read leaves the client mid-body: close rather than reuse the socket.
    const part = await readFilePart(req, { maxBytes: MAX_UPLOAD_BYTES }).catch((err) => {
      res.set('Connection', 'close');
      throw err;
    });
    // Exactly one input: a multipart body naming an image_url as well is ambiguous.
    if (part.otherFields.includes('image_url')) {
      throw new DomainError('invalid_value', 'Send either a `file` part or `image_url`, not both', 'image_url');
    }
    bytes = part.bytes;
  } else if (req.is('application/json')) {
    param = 'image_url';
    await new Promise<void>((resolve, reject) => parseJson(req, res, (err?: Error) => (err ? reject(err) : resolve())));
    const body = req.body as unknown;
    if (body === null || typeof body !== 'object' || Array.isArray(body) || !('image_url' in body)) throw neither();
    // The guard itself refuses anything that is not an absolute http(s) URL string.
    bytes = await fetchImageBytes((body as { image_url: string }).image_url, {
      maxBytes: MAX_UPLOAD_BYTES,
      timeoutMs: 10_000,
      allowLoopback: config.imageFetch.allowLoopback,
      loopbackOnly: config.imageFetch.loopbackOnly,
    });
  } else {
    throw neither();
  }
  const image = await inspectImage(bytes).catch((err) => {
    throw err instanceof DomainError ? err.withParam(param) : err;
  });
  const fileId = newFileId(image.ext);
  await store.put(fileId, bytes);
  await db.upload.create({
    data: {
      fileId,
      organizationId: apiKeyAuthOf(res).organizationId,
      sha256: sha256Hex(bytes),
      ext: image.ext,
      mime: image.mime,
      width: image.width,
      height: image.height,
      sizeBytes: bytes.length,
    },
  });
  return { file_id: fileId };
}

const MIME_BY_EXT: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp' };

/** Public, immutable asset URLs: `/assets/<sha256>.<ext>` (content-addressed). */
export function assetRoutes(store: AssetStore): Router {
  const router = Router();
  router.get('/assets/:name', labelRoute('/assets/:name'), async (req, res, next) => {
    const match = /^([0-9a-f]{64})\.(png|jpg|webp)$/.exec(String(req.params.name));
    const bytes = match ? await store.get(`assets/${match[1]}.${match[2]}`) : null;
    if (!bytes || !match) return next();
    res.set({
      'Content-Type': MIME_BY_EXT[match[2]],
      'Cache-Control': 'public, max-age=31536000, immutable',
      'X-Content-Type-Options': 'nosniff',
    });
    res.send(bytes);
  });
  return router;
}
