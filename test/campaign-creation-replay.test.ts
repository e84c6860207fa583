/**
 * The creation saga's code replays the histories its earlier versions wrote: a run in flight
 * during a deploy (a worker killed mid-saga, a tree still downloading its images) finishes on
 * the new code, and every change to the saga's steps goes behind a `patched()` call. Each
 * fixture is the history of a run of one version (test/fixtures/campaign-creation-histories,
 * numbered by version): created, created with an image download (the tree as an activity of
 * its own, so several workflow tasks), and declined (the rollback's activities).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import * as proto from '@temporalio/proto';
import { patchProtobufRoot } from '@temporalio/proto/lib/patch-protobuf-root';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { workflowSource } from '../worker/workflow-source';

const dir = path.join(__dirname, 'fixtures', 'campaign-creation-histories');
const fixtures = readdirSync(dir).filter((name) => name.endsWith('.json'));

/**
 * A history file (`temporal workflow show --output json`) as the SDK's History. Not through the SDK's
 * historyFromJSON: npm gives @temporalio/common and @temporalio/proto two copies of protobufjs here,
 * and that function mixes them ("type must be a Type"). This reads with the copy the types were built with.
 */
const { fromJson } = createRequire(require.resolve('@temporalio/proto'))('protobufjs/ext/protojson') as {
  fromJson(this: void, type: unknown, json: unknown, options: object): proto.temporal.api.history.v1.History;
};
const historyType = (patchProtobufRoot(proto) as unknown as { lookupType(name: string): unknown }).lookupType('temporal.api.history.v1.History');
const historyOf = (json: unknown) => fromJson(historyType, json, { ignoreUnknownFields: true });

beforeAll(() => {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
});

test('every version of the saga has a created, an image-download and a declined history', () => {
  const versions = new Set(fixtures.map((name) => name.replace(/-(created|created-with-image-download|declined)\.json$/, '')));
  for (const version of versions) {
    expect(fixtures.filter((name) => name.startsWith(`${version}-`)).sort()).toEqual(
      [`${version}-created-with-image-download.json`, `${version}-created.json`, `${version}-declined.json`].sort(),
    );
  }
  expect(versions.size).toBeGreaterThanOrEqual(2);
});

test.each(fixtures)(
  '%s replays on the current workflow code',
  async (name) => {
    const history = historyOf(JSON.parse(readFileSync(path.join(dir, name), 'utf8')));
    // A nondeterministic replay (a step added, removed or reordered outside a patch) throws DeterminismViolationError.
    await expect(Worker.runReplayHistory({ ...workflowSource(), replayName: name }, history, `replay-${name}`)).resolves.toBeUndefined();
  },
  120_000,
);
