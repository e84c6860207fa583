/**
 * One door (docs/architecture.md): the ad request has one Express route, its input one
 * declaration (auction/request-schema.ts) that both the OpenAPI document and the route's
 * validation come from, and nothing answers it before Express.
 */
import express from 'express';
import { z } from 'zod';
import { adRequestSchema } from '../../auction/request-schema';
import { compiledSchema } from '../../lib/validation';
import { adRequest, contextualRequest, useAuction } from './support';

// In-house demand is switched off: only the validation is looked at.
const h = useAuction({ budget: { mayServe: () => false } });

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle: { stack?: Layer[] };
}

/** Every route of an Express router, nested routers included. */
const routesOf = (stack: Layer[]): NonNullable<Layer['route']>[] =>
  stack.flatMap((layer) => (layer.route ? [layer.route] : layer.handle.stack ? routesOf(layer.handle.stack) : []));

const documentedBody = async () => {
  const doc = (await (await fetch(`${h.url}/v1/openapi.json`)).json()) as any;
  return doc.paths['/v1/ad_requests'].post.requestBody.content['application/json'].schema;
};

test('one route answers POST /v1/ad_requests, and nothing answers before Express', () => {
  const app = h.auction.app as unknown as { handle: unknown; router: { stack: Layer[] } };
  const routes = routesOf(app.router.stack).filter((r) => r.path === '/v1/ad_requests' && r.methods.post);
  expect(routes).toHaveLength(1);
  // A raw route ahead of Express would replace the app's request entry.
  expect(app.handle).toBe((express.application as unknown as { handle: unknown }).handle);
});

test("the OpenAPI document's request body is the route's schema, and zod compiles it", async () => {
  expect(await documentedBody()).toEqual(z.toJSONSchema(adRequestSchema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }));
  // A schema zod cannot compile would still be right, on zod's slower runtime parse.
  expect(compiledSchema(adRequestSchema)).not.toBe(adRequestSchema);
});

test('every length bound the document declares on a text field is the bound the route enforces', async () => {
  const properties = (await documentedBody()).properties as Record<string, { type?: string; maxLength?: number }>;
  const bounded = Object.entries(properties).filter(([, p]) => p.type === 'string' && p.maxLength !== undefined);
  expect(bounded.map(([field]) => field)).toEqual(expect.arrayContaining(['userId', 'chatId', 'request_id', 'timezone', 'user_agent']));
  for (const [field, { maxLength }] of bounded) {
    const over = await adRequest(h, contextualRequest({ [field]: 'a'.repeat(maxLength! + 1) }));
    expect({ field, status: over.status, code: over.body.error?.code, param: over.body.error?.param }).toEqual({
      field,
      status: 400,
      code: 'string_too_long',
      param: field,
    });
    const at = await adRequest(h, contextualRequest({ [field]: 'a'.repeat(maxLength!) }));
    expect({ field, code: at.body.error?.code }).not.toEqual({ field, code: 'string_too_long' });
  }
});
