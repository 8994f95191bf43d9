/** Escalation steps taken for problems: one row per problem and step number, written once. */
export interface EscalationRepo {
  /** Records step `step` of the problem; true only for the one caller that recorded it (several daemons, retries). */
  claimStep(problemId: string, step: number, atMs: number): Promise<boolean>;
  /** The highest step recorded per problem (problems without a step are absent). */
  lastSteps(problemIds: string[]): Promise<Map<string, number>>;
}
