// What each fixture project's failures are, whichever format its tool printed them in.
import type { Failure } from '../../../src/core/types';

export type Row = [file: string | undefined, line: number | undefined, id: string];

export const EXPECTED: Record<string, Row[]> = {
  tsc: [
    ['src/cart.ts', 6, 'TS2345'],
    ['src/price.ts', 11, 'TS2322'],
    ['src/price.ts', 15, 'TS2322'],
  ],
  eslint: [
    ['src/broken.js', 2, 'fatal'],
    ['src/inventory.js', 2, 'no-unused-vars'],
    ['src/inventory.js', 5, 'eqeqeq'],
    ['src/inventory.js', 7, 'no-undef'],
  ],
  mocha: [
    ['test/queue.test.js', 9, 'Queue pops in arrival order'],
    // Mocha prints no stack for a timeout: the line is the test's, found by its title.
    ['test/queue.test.js', 24, 'Queue drains within the time limit'],
    ['test/queue.test.js', 32, 'Queue keeps a list of items'],
    ['test/queue.test.js', 20, 'Queue peek shows the head without removing it'],
  ],
  jest: [
    ['__tests__/wallet.test.js', 5, 'wallet › balance subtracts withdrawals'],
    ['__tests__/wallet.test.js', 9, 'wallet › currency knows the pound'],
    ['__tests__/wallet.test.js', 17, 'wallet › lists entries'],
    ['__tests__/wallet.test.js', 20, 'wallet › settles in time'],
    ['__tests__/broken.test.js', 1, 'Test suite failed to run'],
  ],
  vitest: [
    ['test/broken.test.js', 2, 'Test suite failed to run'],
    ['test/temperature.test.js', 6, 'toFahrenheit > converts freezing'],
    ['test/temperature.test.js', 10, 'toFahrenheit > converts a list'],
    ['test/temperature.test.js', 20, 'parseReading > reads Fahrenheit too'],
    ['test/temperature.test.js', 23, 'parseReading > answers in time'],
  ],
  'node-test': [
    ['test/shop.test.js', 7, 'cart > subtotal multiplies by quantity'],
    ['test/shop.test.js', 15, 'cart > discount refuses more than everything'],
    ['test/shop.test.js', 20, 'slugify joins words with dashes'],
  ],
};

/** Vitest's JSON report gives no position for a file that failed to load: the line importing the missing module is found. */
export const VITEST_JSON: Row[] = EXPECTED.vitest!;

/** What a failure must say, by fixture and id: the actual values that make it this failure. */
export const MESSAGES: Record<string, Record<string, RegExp>> = {
  tsc: { TS2345: /Argument of type 'string' is not assignable to parameter of type 'number'/ },
  eslint: { 'no-undef': /'missingGlobal' is not defined/, fatal: /Parsing error/ },
  mocha: { 'Queue pops in arrival order': /'b' !== 'a'/, 'Queue drains within the time limit': /Timeout of 300ms exceeded/ },
  jest: { 'wallet › balance subtracts withdrawals': /Received: 14/, 'wallet › currency knows the pound': /unknown currency GBP/ },
  vitest: { 'toFahrenheit > converts freezing': /expected \+0 to be 32/, 'parseReading > reads Fahrenheit too': /not a reading: 70 F/ },
  'node-test': { 'cart > subtotal multiplies by quantity': /7 !== 10/, 'cart > discount refuses more than everything': /RangeError: discount of 150% is more than the price/ },
};

export function rows(failures: readonly Failure[]): Row[] {
  return failures.map((f) => [f.file, f.line, f.id ?? ''] as Row).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

export function sorted(r: readonly Row[]): Row[] {
  return [...r].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}
