// The hours of rows handed to the writer and not yet committed or failed. The writer adds and removes;
// the rollup flusher reads the oldest one for its crash-repair mark. A service of its own so neither of
// the two needs the other at construction (the writer feeds the flusher's ledger).
export class PendingCommits {
  private readonly hours = new Map<object, number>();

  add(submission: object, hour: number): void {
    this.hours.set(submission, hour);
  }

  delete(submission: object): void {
    this.hours.delete(submission);
  }

  /** The earliest hour (ms) of rows handed over and not yet committed or failed, or null. */
  oldestHour(): number | null {
    let oldest: number | null = null;
    for (const hour of this.hours.values()) if (oldest === null || hour < oldest) oldest = hour;
    return oldest;
  }
}
