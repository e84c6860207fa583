/**
 * Resolves once every URL answers 2xx (a service that listens but is not ready yet answers
 * nothing or an error), polling every `everyMs`; resolves false if `stopped()` turns true
 * first. `npm start` prints its URLs only then: printed earlier, a newcomer's first request
 * met a refused connection.
 */
export async function whenAnswering(urls: string[], stopped: () => boolean, everyMs = 250): Promise<boolean> {
  const answers = (url: string) =>
    fetch(url, { signal: AbortSignal.timeout(2000) }).then(
      (res) => res.ok,
      () => false,
    );
  while (!stopped()) {
    if ((await Promise.all(urls.map(answers))).every(Boolean)) return true;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return false;
}
