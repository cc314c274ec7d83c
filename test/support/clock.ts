/** A clock tests move by hand, so time-dependent rules are asserted exactly. */
export class TestClock {
  private current: Date;

  constructor(start = '2026-12-01T10:00:00Z') {
    this.current = new Date(start);
  }

  now = (): Date => new Date(this.current);

  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }

  set(at: string | Date): void {
    this.current = new Date(at);
  }
}
