import { hash } from 'node:crypto';

/** SHA-256 as lowercase hex: content addresses, secret digests, request fingerprints. */
export const sha256Hex = (data: string | Buffer): string => hash('sha256', data, 'hex');
