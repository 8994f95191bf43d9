export interface LeasesRepo {
  /** Takes or renews the named lease for `owner` until `nowMs + ttlMs`; false while another owner holds it. */
  acquire(name: string, owner: string, nowMs: number, ttlMs: number): Promise<boolean>;
  release(name: string, owner: string): Promise<void>;
}
