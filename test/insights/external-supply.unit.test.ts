/**
 * A partner's report as text (domain/delivery/external-supply.ts parseExternalReport): CSV as
 * RFC 4180 has it (quoted fields, doubled quotes, line breaks in quotes, CRLF), a byte order mark
 * before CSV or JSON, and the errors a bad file gets.
 */
import { ExternalReportError, parseExternalReport } from '../../domain/delivery/external-supply';

const AD = '6f1c2b9e-1d2a-4c3b-8e4f-5a6b7c8d9e0f';
const row = { date: '2026-02-01', ad_id: AD, impressions: 100, clicks: 4, spend_micros: 1_500_000n };

test('a quoted field may hold a comma, a doubled quote and a line break', () => {
  const csv = [
    'date,ad_id,impressions,clicks,spend_micros,note',
    `2026-02-01,${AD},100,4,1500000,"Shoes, boots and ""more"""`,
    `"2026-02-01","${AD}","100","4","1500000","two`,
    `lines"`,
  ].join('\n');
  expect(parseExternalReport(csv)).toEqual([row, row]);
});

test('a byte order mark before the header is not part of its first column name (CSV)', () => {
  expect(parseExternalReport(`\uFEFFdate,ad_id,impressions,clicks,spend_micros\r\n2026-02-01,${AD},100,4,1500000\r\n`)).toEqual([row]);
});

test('a byte order mark before a JSON report is not a JSON error', () => {
  expect(parseExternalReport(`\uFEFF[{"date":"2026-02-01","ad_id":"${AD}","impressions":100,"clicks":4,"spend_micros":"1500000"}]`)).toEqual([row]);
});

test("blank lines are skipped; an error names the file's line", () => {
  const csv = ['date,ad_id,impressions,clicks,spend_micros', '', `2026-02-01,${AD},100,4,1500000`, '   ', `2026-02-31,${AD},1,0,1`].join('\n');
  expect(() => parseExternalReport(csv)).toThrow(new ExternalReportError('line 5: date must be a real YYYY-MM-DD day'));
});

test.each([
  ['a row with a field too many', `date,ad_id,impressions,clicks,spend_micros\n2026-02-01,${AD},1,0,1,extra`, 'line 2: expected 5 columns, got 6'],
  [
    'a header without spend_micros',
    `date,ad_id,impressions,clicks\n2026-02-01,${AD},1,0`,
    'The CSV header lacks spend_micros (columns: date,ad_id,impressions,clicks,spend_micros)',
  ],
  ['nothing but blank lines', '\n\n', 'The report is empty'],
  ['a header and no rows', 'date,ad_id,impressions,clicks,spend_micros\n', 'The report has no rows'],
])('%s: refused', (_, text, message) => {
  expect(() => parseExternalReport(text)).toThrow(new ExternalReportError(message));
});

test('a quote left open: refused as malformed CSV, with where', () => {
  let error: unknown;
  try {
    parseExternalReport(`date,ad_id,impressions,clicks,spend_micros\n2026-02-01,"${AD},1,0,1\n`);
  } catch (err) {
    error = err;
  }
  expect(error).toBeInstanceOf(ExternalReportError);
  expect((error as Error).message).toMatch(/^The CSV is malformed: .*line 2/);
});
