import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { DomainError } from '../../domain/errors';

export interface FilePart {
  bytes: Buffer;
  /** Names of the non-file fields, in order (values are not kept), so callers can refuse unknown ones. */
  otherFields: string[];
}

const invalidFile = (message: string) => new DomainError('invalid_file', message, 'file');

/**
 * Reads the single file part of a multipart/form-data request, streaming:
 * the bytes are counted as they arrive and parsing stops the moment the
 * cap is passed, so an oversized upload is never buffered.
 *
 * On failure the rest of the body is drained, not parsed; the caller should
 * answer with `Connection: close` so a client still sending stops.
 */
export function readFilePart(req: IncomingMessage, opts: { maxBytes: number; field?: string }): Promise<FilePart> {
  const field = opts.field ?? 'file';
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      // Field values are discarded, so small limits on them cost nothing.
      bb = busboy({ headers: req.headers, limits: { fields: 100, fieldSize: 64 * 1024, parts: 102 } });
    } catch {
      return reject(invalidFile('Request body must be multipart/form-data'));
    }

    const chunks: Buffer[] = [];
    const otherFields: string[] = [];
    let size = 0;
    let fileParts = 0;
    let settled = false;
    const fail = (err: DomainError) => {
      if (settled) return;
      settled = true;
      req.unpipe(bb);
      req.resume(); // discard the remainder instead of parsing it
      reject(err);
    };

    bb.on('file', (name, stream) => {
      stream.on('error', () => undefined); // busboy reports the same error on itself, handled below
      fileParts += 1;
      if (fileParts > 1) {
        stream.resume();
        return fail(new DomainError('invalid_value', 'Send exactly one file part', field));
      }
      if (name !== field) {
        stream.resume();
        return fail(new DomainError('invalid_value', `The file part must be named "${field}", not "${name}"`, field));
      }
      stream.on('data', (chunk: Buffer) => {
        if (settled) return;
        size += chunk.length;
        if (size > opts.maxBytes) {
          stream.resume();
          return fail(new DomainError('file_too_large', `The file is larger than ${opts.maxBytes} bytes`, field));
        }
        chunks.push(chunk);
      });
    });
    bb.on('field', (name) => otherFields.push(name));
    bb.on('partsLimit', () => fail(new DomainError('invalid_value', 'Too many form fields', null)));
    bb.on('fieldsLimit', () => fail(new DomainError('invalid_value', 'Too many form fields', null)));
    bb.on('error', () => fail(invalidFile('Malformed multipart/form-data body')));
    bb.on('close', () => {
      if (settled) return;
      if (fileParts === 0) return fail(new DomainError('invalid_value', `A file part named "${field}" is required`, field));
      settled = true;
      resolve({ bytes: Buffer.concat(chunks), otherFields });
    });
    // Also a client disconnecting mid-body (ECONNRESET "aborted"): settle instead of hanging.
    req.on('error', () => fail(invalidFile('The upload was interrupted')));
    req.pipe(bb);
  });
}
