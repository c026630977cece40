import type { Knex } from 'knex';

/**
 * A repository whose writes run in its transactions, and whose every committed transaction is reported
 * to `committed` (the caches that hold what it writes are emptied there, before the caller answers).
 */
export abstract class TransactionalRepo {
  constructor(
    protected readonly knex: Knex,
    private readonly committed: () => void = () => {},
  ) {}

  async transaction<T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    const result = await this.knex.transaction(work);
    this.committed();
    return result;
  }
}
