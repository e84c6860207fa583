/** The dashboard's JSON endpoints (same origin, session cookie, CSRF header on every change). */
const csrfToken = () => document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content ?? '';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A JSON request (a FormData body goes as multipart/form-data: the account's logo). */
export async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken();
  const form = body instanceof FormData;
  if (body !== undefined && !form) headers['content-type'] = 'application/json';
  const res = await fetch(`/dashboard/api${path}`, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : form ? body : JSON.stringify(body),
  });
  const parsed = (await res.json().catch(() => null)) as { error?: { code?: string; message?: string } } | null;
  if (!res.ok) {
    const error = parsed?.error ?? {};
    if (res.status === 401) location.assign('/dashboard/login');
    throw new ApiError(res.status, error.code ?? 'internal_error', error.message ?? `Request failed (${res.status})`);
  }
  return parsed as T;
}

/** An error as the page shows it: the spec's code and its message. */
export const describeError = (err: unknown) => (err instanceof ApiError ? `${err.message} (${err.code})` : `Something went wrong: ${(err as Error).message}`);
