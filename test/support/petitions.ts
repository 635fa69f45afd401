// Petitions made through the API, for tests.
import { json } from './http.ts';
import { bearer } from './identity.ts';

export const DESCRIPTION = 'This petition asks the council to keep the public library open on Sundays for families and students.';

export async function createPetition(baseUrl: string, token: string, overrides: Record<string, unknown> = {}) {
  const response = await fetch(`${baseUrl}/v1/petitions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(token) },
    body: JSON.stringify({ title: 'Keep the library open on Sundays', description: DESCRIPTION, ...overrides }),
  });
  const body = await json(response);
  if (response.status !== 201) throw new Error(`creating a petition failed: ${response.status} ${JSON.stringify(body)}`);
  return body.data;
}

export async function transition(baseUrl: string, token: string, petitionId: string, verb: 'publish' | 'close' | 'victory', body?: unknown) {
  return fetch(`${baseUrl}/v1/petitions/${petitionId}/${verb}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(token) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

export async function publishedPetition(baseUrl: string, token: string, overrides: Record<string, unknown> = {}) {
  const petition = await createPetition(baseUrl, token, overrides);
  const response = await transition(baseUrl, token, petition.id, 'publish');
  if (response.status !== 200) throw new Error(`publishing failed: ${response.status} ${JSON.stringify(await json(response))}`);
  return (await json(response)).data;
}
