import type { Readable } from 'node:stream';
import type { Knex } from 'knex';
import { CsvError, parse } from 'csv-parse';
import { ValidationError } from '../../lib/errors.ts';
import { toE164 } from '../../lib/phone-numbers.ts';
import { findCampaign } from '../campaigns/service.ts';
import { leadTexts } from './service.ts';
import { numbersInCampaign } from './queries.ts';

/** The largest CSV an import takes: 100,000 leads with a dozen variables each fit in it. */
export const MAX_IMPORT_BYTES = 64 * 1024 * 1024;
/** Rows inserted per transaction: the campaign's row is locked only that long, so other requests interleave. */
const BATCH_ROWS = 1000;
/** Reasons listed in the answer; the rest are counted. */
const LISTED_REASONS = 100;
/** The names a number column goes by, in order of preference. */
const NUMBER_COLUMNS = ['phone_number', 'phone', 'number'];
/** A row this long is not a lead; the limit keeps a file without line breaks from filling memory. */
const MAX_ROW_BYTES = 64 * 1024;

export interface ImportReport {
  rows: number;
  created: number;
  duplicates: number;
  invalid: number;
  reasons: { row: number; phone_number: string; reason: string }[];
  reasonsOmitted: number;
}

interface PendingLead {
  row: number;
  written: string;
  phoneNumber: string;
  variables: Record<string, string>;
}

const headerName = (cell: string) => cell.trim().toLowerCase().replace(/\s+/g, '_');

/** The column of the number and the variable name of every other column (empty names are skipped). */
function readHeader(cells: string[]): { numberColumn: number; names: (string | undefined)[] } {
  const names = cells.map((cell) => cell.trim());
  const normalised = cells.map(headerName);
  const numberColumn = NUMBER_COLUMNS.map((name) => normalised.indexOf(name)).find((index) => index !== -1);
  if (numberColumn === undefined) {
    throw ValidationError.of('file', 'The CSV file needs a header row with a phone_number column (or phone, or number).');
  }
  const repeated = names.find((name, index) => name !== '' && names.indexOf(name) !== index);
  if (repeated !== undefined) throw ValidationError.of('file', `The CSV file's header names the column "${repeated}" twice.`);
  if (names.some((name) => name.includes('\u0000'))) throw ValidationError.of('file', 'The CSV file\'s header must not contain null characters.');
  return { numberColumn, names: names.map((name, index) => (index === numberColumn || name === '' ? undefined : name)) };
}

/**
 * Imports a CSV of leads into one of the user's campaigns as it is read: a header row names the number's
 * column (`phone_number`, `phone` or `number`) and the variables (every other column; empty cells are left
 * out). Rows are checked and inserted a batch at a time, so the file never sits in memory: an invalid number
 * and, unless `allowDuplicates`, a number the campaign already has (from before, or from an earlier row) are
 * counted and reported by line, not created.
 *
 * Each batch commits on its own (a transaction over the whole file would hold the embedded database's one
 * connection for its length). A file that turns out malformed half-way is answered 422 naming the line and how
 * many leads were created before it; importing the corrected file again skips those as duplicates.
 */
export async function importLeads(knex: Knex, userId: number, campaignId: number, source: Readable, options: { allowDuplicates: boolean }): Promise<ImportReport> {
  await findCampaign(knex, userId, campaignId);
  const report: ImportReport = { rows: 0, created: 0, duplicates: 0, invalid: 0, reasons: [], reasonsOmitted: 0 };
  const refuse = (kind: 'duplicates' | 'invalid', row: number, written: string, reason: string) => {
    report[kind] += 1;
    if (report.reasons.length < LISTED_REASONS) report.reasons.push({ row, phone_number: written, reason });
    else report.reasonsOmitted += 1;
  };

  const flush = async (batch: PendingLead[]) => {
    if (batch.length === 0) return;
    await knex.transaction(async (trx) => {
      // Locked as a single create locks it, so the duplicate check holds against both; a campaign deleted
      // meanwhile ends the import with its 404.
      const campaign = await findCampaign(trx, userId, campaignId, { lock: true });
      const taken = options.allowDuplicates ? new Set<string>() : await numbersInCampaign(trx, campaign.id, batch.map((lead) => lead.phoneNumber));
      const rows = [];
      for (const lead of batch) {
        if (taken.has(lead.phoneNumber)) {
          refuse('duplicates', lead.row, lead.written, 'Already a lead of this campaign');
          continue;
        }
        if (!options.allowDuplicates) taken.add(lead.phoneNumber);
        rows.push({ userId, campaignId: campaign.id, phoneNumber: lead.phoneNumber, variables: JSON.stringify(lead.variables), status: 'created' });
      }
      if (rows.length > 0) await trx('leads').insert(rows);
      report.created += rows.length;
    });
  };

  const parser = source.pipe(parse({ bom: true, info: true, relax_column_count: true, skip_empty_lines: true, max_record_size: MAX_ROW_BYTES }));
  source.on('error', (error) => parser.destroy(error));
  let header: ReturnType<typeof readHeader> | undefined;
  let batch: PendingLead[] = [];
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      if (!header) {
        header = readHeader(record);
        continue;
      }
      report.rows += 1;
      const row = info.lines;
      const written = (record[header.numberColumn] ?? '').trim();
      if (record.length > header.names.length && record.slice(header.names.length).some((cell) => cell.trim() !== '')) {
        refuse('invalid', row, written, `The row has ${record.length} fields; the header has ${header.names.length}`);
        continue;
      }
      if (record.some((cell) => cell.includes('\u0000'))) {
        refuse('invalid', row, written.replaceAll('\u0000', ''), 'The row contains a null character');
        continue;
      }
      const phoneNumber = written === '' ? undefined : toE164(written);
      if (!phoneNumber) {
        refuse('invalid', row, written, written === '' ? 'No phone number' : leadTexts.invalidNumber);
        continue;
      }
      const variables: Record<string, string> = {};
      header.names.forEach((name, index) => {
        const value = record[index]?.trim();
        if (name !== undefined && value) variables[name] = value;
      });
      batch.push({ row, written, phoneNumber, variables });
      if (batch.length >= BATCH_ROWS) {
        await flush(batch);
        batch = [];
      }
    }
    await flush(batch);
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    // The rows taken before the fault are good: they are kept, as the message says. (The parser may have read a
    // few rows past the last one taken, which the fault discards with it.)
    await flush(batch);
    throw ValidationError.of('file', `The CSV file is malformed: ${error.message}. ${report.created} leads from the rows before it `
      + 'were created; importing the corrected file again skips them as duplicates.');
  }
  if (!header) throw ValidationError.of('file', 'The CSV file is empty: it needs a header row with a phone_number column.');
  return report;
}
