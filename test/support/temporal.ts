import { randomBytes } from 'node:crypto';
import { Connection } from '@temporalio/client';
// The SDK's own conversions to the wire types, which no index of the SDK exports.
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes.js';
import { msToTs } from '@temporalio/common/lib/time.js';
import { inject } from 'vitest';
import { searchAttributes } from '../../src/temporal/names.ts';

let namespace: Promise<string> | undefined;

/**
 * This test file's own Temporal namespace on the run's dev server, registered on first use and shared by
 * every platform and worker of the file. Workflow ids come from record ids (`document-1`), and every file
 * numbers its records from the same database template: a namespace per file keeps them apart.
 */
export function testNamespace(): Promise<string> {
  namespace ??= registerNamespace(inject('temporalAddress'), `test-${randomBytes(6).toString('hex')}`);
  return namespace;
}

/**
 * Registers `name` with the search attributes the workflows set (the dev server's `--search-attribute` flags
 * only reach `default`), then waits until the server lists them, so the first start can use them.
 */
async function registerNamespace(address: string, name: string): Promise<string> {
  const connection = await Connection.connect({ address });
  try {
    await connection.workflowService.registerNamespace({
      namespace: name,
      // The shortest retention the server accepts; the dev server forgets everything when the run ends anyway.
      workflowExecutionRetentionPeriod: msToTs('1 day'),
    });
    const wanted = Object.values(searchAttributes);
    const types = Object.fromEntries(wanted.map((key) => {
      const type = encodeSearchAttributeIndexedValueType(key.type);
      if (type === undefined) throw new Error(`search attribute ${key.name}: no wire type for ${key.type}`);
      return [key.name, type];
    }));
    await connection.operatorService.addSearchAttributes({ namespace: name, searchAttributes: types });
    const deadline = Date.now() + 10_000;
    for (;;) {
      const listed = await connection.operatorService.listSearchAttributes({ namespace: name });
      if (wanted.every((key) => listed.customAttributes?.[key.name] !== undefined)) return name;
      if (Date.now() > deadline) throw new Error(`namespace ${name}: the search attributes were not listed within 10 s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await connection.close();
  }
}
