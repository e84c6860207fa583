/**
 * The chat host reads the auction's OpenAPI document to build its request: every
 * field of the ad request and of its answer says what it is.
 */
import { adRequestOperation, auctionOpenApi } from '../../auction/openapi';

type Schema = { description?: string; properties?: Record<string, Schema>; items?: Schema; anyOf?: Schema[]; $ref?: string };

/** The paths of the properties without a description (a property's nested objects and array items too). */
function undescribed(schema: Schema | undefined, path: string, out: string[]): string[] {
  if (!schema) return out;
  for (const variant of schema.anyOf ?? []) undescribed(variant, path, out);
  if (schema.items) undescribed(schema.items, `${path}[]`, out);
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const described = property.description || property.anyOf?.some((v) => v.description);
    if (!described) out.push(`${path}.${name}`);
    undescribed(property, `${path}.${name}`, out);
  }
  return out;
}

test('every field of the ad request and of its answer has a description', () => {
  const doc = auctionOpenApi([adRequestOperation(async () => ({}))]) as unknown as {
    paths: Record<
      string,
      { post: { requestBody: { content: Record<string, { schema: Schema }> }; responses: Record<string, { content?: Record<string, { schema: Schema }> }> } }
    >;
  };
  const op = doc.paths['/v1/ad_requests'].post;
  const request = op.requestBody.content['application/json'].schema;
  const answer = op.responses['200'].content!['application/json'].schema;
  expect(Object.keys(request.properties ?? {})).toContain('messages');
  expect(undescribed(request, 'request', [])).toEqual([]);
  expect(undescribed(answer, 'answer', [])).toEqual([]);
});
