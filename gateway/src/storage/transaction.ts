// One way to run work in a transaction on a pooled connection: begin, the work, commit; on any
// error a rollback and the error rethrown. A connection whose rollback failed is discarded, and so
// is any connection that failed when `discardOnError` is set (after a failed COPY its protocol state
// is not worth trusting).
import type pg from "pg";

export async function withTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>, options: { discardOnError?: boolean } = {}): Promise<T> {
  const client = await pool.connect();
  let discard = false;
  try {
    await client.query("begin");
    const result = await work(client);
    await client.query("commit");
    return result;
  } catch (error) {
    discard = options.discardOnError === true;
    await client.query("rollback").catch(() => {
      discard = true;
    });
    throw error;
  } finally {
    client.release(discard);
  }
}
