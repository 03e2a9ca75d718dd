/**
 * Checks a response's status and gives back its body, parsed as JSON when it is JSON, else as text. Throws an
 * error that shows the body when the status differs, so a failing plugin test says what the route answered.
 *
 * @example
 * const body = await expectStatus(await fetchRoute(runtime, '/webhook', { method: 'POST' }), 400);
 */
export async function expectStatus(response: Response, status: number): Promise<unknown> {
  const text = await response.text();
  let body: unknown = text;
  if ((response.headers.get('content-type') ?? '').includes('json') && text !== '') {
    try {
      body = JSON.parse(text);
    } catch {
      // Not JSON after all; the text is what the test sees.
    }
  }
  if (response.status !== status) {
    throw new Error(
      `expected HTTP ${status} from ${response.url || 'the route'}, got ${response.status}: ${text.slice(0, 500)}`,
    );
  }
  return body;
}
