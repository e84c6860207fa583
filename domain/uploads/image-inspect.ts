import sharp from 'sharp';
import { DomainError } from '../errors';

/**
 * 5 MB upload cap, counted in binary megabytes (MiB): 5 × 1024 × 1024 =
 * 5,242,880 bytes. The binary reading is the larger of the two, so a file a
 * client's OS shows as "5 MB" is never refused.
 */
export const MAX_UPLOAD_BYTES = 5 * 1024 * 1024;

/**
 * Decoding cap: 25 megapixels (e.g. 6000 × 4000 camera output). A 5 MB file
 * can declare a huge canvas (decompression bomb); sharp checks the declared
 * size before it allocates.
 */
const MAX_INPUT_PIXELS = 25_000_000;

export interface ImageInfo {
  format: 'png' | 'jpeg' | 'webp';
  ext: 'png' | 'jpg' | 'webp';
  mime: string;
  width: number;
  height: number;
}

const ACCEPTED = {
  png: { ext: 'png', mime: 'image/png' },
  jpeg: { ext: 'jpg', mime: 'image/jpeg' },
  webp: { ext: 'webp', mime: 'image/webp' },
} as const;

/**
 * Signatures of image formats we recognise but refuse. These are told apart by
 * their magic number alone, never handed to a decoder: fewer decoders
 * (SVG, HEIF, TIFF…) ever see untrusted bytes.
 */
const REFUSED: ReadonlyArray<readonly [name: string, test: (b: Buffer) => boolean]> = [
  ['gif', (b) => ascii(b, 0, 'GIF87a') || ascii(b, 0, 'GIF89a')],
  ['tiff', (b) => ascii(b, 0, 'II*\0') || ascii(b, 0, 'MM\0*')],
  ['bmp', (b) => ascii(b, 0, 'BM')],
  ['ico', (b) => b.subarray(0, 4).equals(Buffer.from([0, 0, 1, 0]))],
  ['avif/heif', (b) => ascii(b, 4, 'ftyp')], // ISO-BMFF
  ['jpeg 2000', (b) => b.subarray(0, 12).equals(Buffer.from('0000000c6a5020200d0a870a', 'hex'))],
  ['jpeg xl', (b) => b.subarray(0, 2).equals(Buffer.from([0xff, 0x0a])) || ascii(b, 4, 'JXL ')],
  ['pdf', (b) => ascii(b, 0, '%PDF-')],
  ['svg', (b) => /^\s*(<\?xml|<svg|<!doctype svg)/i.test(b.subarray(0, 256).toString('latin1'))],
];

const invalidFile = (message: string) => new DomainError('invalid_file', message, 'file');

/** Type and size of an uploaded image, from its bytes only (never a filename or declared type). */
export async function inspectImage(bytes: Buffer): Promise<ImageInfo> {
  if (!Buffer.isBuffer(bytes) || bytes.length === 0) throw invalidFile('The file is empty');
  if (bytes.length > MAX_UPLOAD_BYTES) {
    throw new DomainError('file_too_large', `The file is larger than ${MAX_UPLOAD_BYTES} bytes (5 MB)`, 'file');
  }

  const format = sniff(bytes);
  if (!format) {
    const refused = REFUSED.find(([, test]) => test(bytes));
    if (refused) throw new DomainError('unsupported_mimetype', `Unsupported image type (${refused[0]}); use PNG, JPEG or WebP`, 'file');
    throw invalidFile('The file is not a PNG, JPEG or WebP image');
  }

  // The header read is unlimited so an oversized canvas gets its own message; the decode below is capped.
  const meta = await sharp(bytes, { limitInputPixels: false })
    .metadata()
    .catch(() => null);
  if (!meta || meta.format !== format) throw invalidFile(`The file is not a valid ${format.toUpperCase()} image`);
  if (meta.width * meta.height > MAX_INPUT_PIXELS) throw invalidFile('The image has more than 25 megapixels');
  try {
    // Metadata only reads the header; decoding every pixel is what catches truncated or corrupt data.
    await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'warning' }).stats();
  } catch {
    throw invalidFile(`The file is not a valid ${format.toUpperCase()} image`);
  }
  // Displayed size: EXIF orientation applied (a portrait phone JPEG is taller than wide).
  return { format, ...ACCEPTED[format], width: meta.autoOrient.width, height: meta.autoOrient.height };
}

function sniff(b: Buffer): keyof typeof ACCEPTED | null {
  if (b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (b.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]))) return 'jpeg';
  if (ascii(b, 0, 'RIFF') && ascii(b, 8, 'WEBP')) return 'webp';
  return null;
}

function ascii(b: Buffer, offset: number, text: string): boolean {
  return b.toString('latin1', offset, offset + text.length) === text;
}
