import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { clip, openAiCompatibleGenerator, templateGenerator } from '../domain/creatives/generator';

/** auto_generate's copy writers: the deterministic template and an OpenAI-compatible endpoint (on loopback). */
const context = {
  adGroupName: 'Trail runners',
  contextHints: ['trail running', 'hiking boots', 'ultramarathon nutrition', 'ignored fourth hint'],
  accountName: 'Summit Gear',
  accountUrl: 'https://www.summitgear.example/shop',
};

describe('templateGenerator', () => {
  test('is deterministic, and the title fits the 30-character card limit', async () => {
    const a = await templateGenerator.generate(context);
    expect(await templateGenerator.generate(context)).toEqual(a);
    expect(a.title).toBe('Summit Gear: trail running');
    expect(a.body).toBe('Discover Summit Gear for trail running, hiking boots, ultramarathon nutrition. Learn more at summitgear.example.');
  });

  test('falls back to the url, then the group name, and clips long titles at a word', async () => {
    const noName = await templateGenerator.generate({ ...context, accountName: '' });
    expect(noName.title).toBe('summitgear.example: trail');
    const bare = await templateGenerator.generate({ adGroupName: 'Group', contextHints: [], accountName: '', accountUrl: '' });
    expect(bare).toEqual({ title: 'Group: Group', body: 'Discover Group.' });
    expect(clip('a'.repeat(40), 30)).toHaveLength(30);
  });
});

describe('openAiCompatibleGenerator', () => {
  let server: http.Server;
  let url: string;
  let answer: (body: any) => [number, unknown];
  const seen: any[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => {
        raw += c;
      });
      req.on('end', () => {
        const body = JSON.parse(raw);
        seen.push({ body, auth: req.headers.authorization });
        const [status, payload] = answer(body);
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(payload));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  const completion = (content: string) => ({ choices: [{ message: { role: 'assistant', content } }] });

  test('sends the context with the model and key, and clips the answer to 30 characters', async () => {
    answer = () => [200, completion(JSON.stringify({ title: 'Conquer every trail with Summit Gear today', body: ' Boots and fuel for long days. ' }))];
    const copy = await openAiCompatibleGenerator(url, 'sk-local', 'small-model').generate(context);
    expect(copy.title.length).toBeLessThanOrEqual(30);
    expect(copy.title).toBe('Conquer every trail with');
    expect(copy.body).toBe('Boots and fuel for long days.');
    const request = seen[seen.length - 1];
    expect(request.auth).toBe('Bearer sk-local');
    expect(request.body.model).toBe('small-model');
    expect(JSON.parse(request.body.messages[1].content)).toEqual(context);
  });

  test('an error status or an unusable answer falls back to the template', async () => {
    const expected = await templateGenerator.generate(context);
    answer = () => [500, { error: 'down' }];
    expect(await openAiCompatibleGenerator(url, undefined, 'm').generate(context)).toEqual(expected);
    answer = () => [200, completion('not json')];
    expect(await openAiCompatibleGenerator(url, undefined, 'm').generate(context)).toEqual(expected);
    answer = () => [200, completion(JSON.stringify({ title: '   ', body: 'x' }))];
    expect(await openAiCompatibleGenerator(url, undefined, 'm').generate(context)).toEqual(expected);
  });
});
