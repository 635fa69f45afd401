// Small helpers for reading API answers in tests.

/** The parsed JSON body; tests assert on its shape, so it is typed loosely on purpose. */
export async function json(response: Response): Promise<any> {
  return response.json();
}
