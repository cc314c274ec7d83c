import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  UnknownRow,
} from 'kysely';

/**
 * Counts the statements sent through a Kysely handle it is plugged into (`db.withPlugin`, or
 * `startTestApp({ queryPlugins })`): the real database answers them, nothing is mocked.
 */
export class QueryCounter implements KyselyPlugin {
  count = 0;

  transformQuery(args: PluginTransformQueryArgs) {
    this.count++;
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }

  /** How many statements `work` sent. */
  async during(work: () => Promise<unknown>): Promise<number> {
    const before = this.count;
    await work();
    return this.count - before;
  }
}
