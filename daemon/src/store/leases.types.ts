/**
 * Named leases for leader jobs, with fencing tokens: each time a lease changes hands its token
 * grows by one (per name, across every daemon on the store; a renewal by the holder keeps it), so
 * a holder that was paused past its expiry and replaced can tell — its token is no longer the
 * newest — before it writes a once-per-cluster side effect.
 */
export interface LeasesRepo {
  /**
   * Takes or renews the named lease for `owner` until `nowMs + ttlMs`; answers the holder's
   * fencing token, or null while another owner holds it.
   */
  acquire(name: string, owner: string, nowMs: number, ttlMs: number): Promise<number | null>;
  /** Ends `owner`'s hold at once (another daemon may take it); the token is kept, so the next holder's is higher. */
  release(name: string, owner: string): Promise<void>;
  /** The newest token of the named lease, 0 if it was never taken. */
  token(name: string): Promise<number>;
}
