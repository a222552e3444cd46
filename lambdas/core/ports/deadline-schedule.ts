/**
 * Wakes the goal's loop at its deadline: a one-time `Deadline Reached` event for the goal (EventBridge
 * Scheduler deployed, the local stack's scheduler locally). Setting it again moves it. The loop
 * itself checks the deadline before each step; this is for the goals no step runs for: waiting for a
 * human, or paused.
 */
export interface DeadlineSchedule {
  set(goalId: string, deadline: string): Promise<void>;
}
