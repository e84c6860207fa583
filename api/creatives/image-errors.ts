import type { ErrorCode } from '../../lib/http/error-codes';

/** What a creative's image (file_id or image_url) can fail with, on every endpoint that takes one. */
export const IMAGE_ERRORS: ErrorCode[] = [
  'invalid_value',
  'invalid_image_url',
  'image_fetch_failed',
  'too_many_redirects',
  'invalid_file',
  'file_too_large',
  'unsupported_mimetype',
];
