import { describe, expect, it } from 'vitest';
import { isDependencyUnavailable } from '../../src/db/unavailable.ts';

const coded = (code: string) => Object.assign(new Error(`failed (${code})`), { code });

describe('isDependencyUnavailable', () => {
  it.each([
    ['ECONNREFUSED', coded('ECONNREFUSED')],
    ['EPIPE', coded('EPIPE')],
    ['admin shutdown (57P01)', coded('57P01')],
    ['the database is starting up (57P03)', coded('57P03')],
    ['too many connections (53300)', coded('53300')],
    ['a connection exception (08006)', coded('08006')],
    ["pg's code-less dropped connection", new Error('Connection terminated unexpectedly')],
    [
      "pg's client that is no longer queryable",
      new Error('Client has encountered a connection error and is not queryable'),
    ],
  ])('%s is an outage', (_, error) => {
    expect(isDependencyUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation (23505)', coded('23505')],
    ['a data exception (22007)', coded('22007')],
    ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['a message that only mentions a connection', new Error('Our Connection terminated test fixture')],
    ['not an error at all', 'Connection terminated'],
  ])('%s is not', (_, error) => {
    expect(isDependencyUnavailable(error)).toBe(false);
  });
});
