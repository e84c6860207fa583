import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { toErrorResponse } from '../../lib/http/errors';
import { DomainError } from '../../domain/errors';
import { inspectImage, MAX_UPLOAD_BYTES } from '../../domain/uploads/image-inspect';

const solid = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: '#ff8800' } });

async function failure(bytes: Buffer): Promise<DomainError> {
  const err = await inspectImage(bytes).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  return err as DomainError;
}

async function expectError(bytes: Buffer, code: string) {
  const err = await failure(bytes);
  expect([toErrorResponse(err).status, err.code, err.param]).toEqual([400, code, 'file']);
}

test('MAX_UPLOAD_BYTES is 5 MiB', () => {
  expect(MAX_UPLOAD_BYTES).toBe(5_242_880);
});

describe('accepted formats', () => {
  test.each([
    ['png', 'png', 'image/png'],
    ['jpeg', 'jpg', 'image/jpeg'],
    ['webp', 'webp', 'image/webp'],
  ] as const)('%s', async (format, ext, mime) => {
    const bytes = await solid(30, 20).toFormat(format).toBuffer();
    await expect(inspectImage(bytes)).resolves.toEqual({ format, ext, mime, width: 30, height: 20 });
  });

  test('dimensions are reported as displayed (EXIF orientation applied)', async () => {
    const bytes = await solid(40, 20).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    await expect(inspectImage(bytes)).resolves.toMatchObject({ width: 20, height: 40 });
  });

  test('a file of exactly MAX_UPLOAD_BYTES is accepted', async () => {
    const png = await solid(8, 8).png().toBuffer();
    const padded = Buffer.concat([png, Buffer.alloc(MAX_UPLOAD_BYTES - png.length)]); // bytes after IEND are ignored
    await expect(inspectImage(padded)).resolves.toMatchObject({ format: 'png', width: 8 });
  });
});

describe('unsupported formats', () => {
  test.each(['gif', 'tiff', 'avif'] as const)('%s → unsupported_mimetype', async (format) => {
    await expectError(await solid(8, 8).toFormat(format).toBuffer(), 'unsupported_mimetype');
  });

  test('svg → unsupported_mimetype', async () => {
    const svg = '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"/>';
    await expectError(Buffer.from(svg), 'unsupported_mimetype');
    await expectError(Buffer.from('  <svg xmlns="http://www.w3.org/2000/svg"/>'), 'unsupported_mimetype');
  });

  test('bmp → unsupported_mimetype', async () => {
    const bmp = Buffer.alloc(58);
    bmp.write('BM', 0, 'latin1');
    await expectError(bmp, 'unsupported_mimetype');
  });
});

describe('invalid files', () => {
  test('empty', async () => {
    await expectError(Buffer.alloc(0), 'invalid_file');
  });

  test('random bytes', async () => {
    const bytes = randomBytes(4096);
    bytes[0] = 0x00; // no accidental signature
    bytes[1] = 0xff;
    await expectError(bytes, 'invalid_file');
  });

  test.each(['png', 'jpeg', 'webp'] as const)('truncated %s (valid signature and header)', async (format) => {
    const whole = await sharp(randomBytes(64 * 64 * 3), { raw: { width: 64, height: 64, channels: 3 } })
      .toFormat(format)
      .toBuffer();
    await expect(inspectImage(whole)).resolves.toMatchObject({ format }); // the untruncated file is fine
    await expectError(whole.subarray(0, Math.floor(whole.length * 0.6)), 'invalid_file');
  });

  test('a PNG signature in front of other bytes', async () => {
    const jpeg = await solid(8, 8).jpeg().toBuffer();
    const png = await solid(8, 8).png().toBuffer();
    await expectError(Buffer.concat([png.subarray(0, 8), jpeg]), 'invalid_file');
  });

  test('a small file declaring more than 25 megapixels (decompression bomb)', async () => {
    const bomb = await solid(6000, 5000).png().toBuffer();
    expect(bomb.length).toBeLessThan(MAX_UPLOAD_BYTES);
    await expectError(bomb, 'invalid_file');
    expect((await failure(bomb)).message).toMatch(/25 megapixels/);
  });
});

describe('size', () => {
  test('a real PNG over 5 MB → file_too_large', async () => {
    const noise = await sharp(randomBytes(1400 * 1400 * 3), { raw: { width: 1400, height: 1400, channels: 3 } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    expect(noise.length).toBeGreaterThan(MAX_UPLOAD_BYTES);
    await expectError(noise, 'file_too_large');
  });

  test('one byte over MAX_UPLOAD_BYTES → file_too_large', async () => {
    const png = await solid(8, 8).png().toBuffer();
    await expectError(Buffer.concat([png, Buffer.alloc(MAX_UPLOAD_BYTES + 1 - png.length)]), 'file_too_large');
  });
});
