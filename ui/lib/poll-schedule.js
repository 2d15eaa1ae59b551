// How often a domain that is not live is polled: often while a change is fresh, less as it
// ages, so that watching many domains costs little of the rate limit. The schedule is pure;
// `PollSchedule` keeps per-domain state with a clock the caller gives it.

/** Steps of the schedule: while a domain's current state is younger than `upTo` ms, poll every `every` ms. */
export const SCHEDULE = Object.freeze([
  { upTo: 2 * 60_000, every: 5_000 },
  { upTo: 10 * 60_000, every: 15_000 },
  { upTo: 60 * 60_000, every: 60_000 },
  { upTo: 24 * 3_600_000, every: 5 * 60_000 },
  { upTo: Infinity, every: 30 * 60_000 },
]);

/** Delay before the next poll of a domain whose state is `ageMs` old. */
export function pollDelay(ageMs, schedule = SCHEDULE) {
  const age = Math.max(0, ageMs);
  return schedule.find((step) => age < step.upTo).every;
}

/**
 * Whether a domain is worth polling at all: live domains are done, and a failed certificate or
 * a failed verification only changes when the user acts (Re-verify), so they are polled slowly.
 */
export function pollClass(domain) {
  if (domain.status === 'live') return 'none';
  if (domain.status === 'verified' && domain.certificate?.status === 'failed') return 'slow';
  if (domain.status === 'verified') return 'active';
  return 'slow';
}

/**
 * Whether a domain still waits on the platform for something that comes without the user:
 * DNS to be seen, or a certificate to be issued. Closing the window keeps watching these.
 */
export function awaitsPlatform(domain) {
  return pollClass(domain) !== 'none' && domain.certificate?.status !== 'failed';
}

/** A signature of what the user sees change: a new signature restarts the back-off. */
export function stateSignature(domain) {
  return [domain.status, domain.certificate?.status, domain.verification?.checked_at, domain.role].join('|');
}

export class PollSchedule {
  /** `now()` returns milliseconds; tests pass a fake clock. */
  constructor(now = () => Date.now(), schedule = SCHEDULE) {
    this.now = now;
    this.schedule = schedule;
    this.entries = new Map();
  }

  /** Records the latest copy of a domain; returns true when its visible state changed. */
  observe(domain) {
    const signature = stateSignature(domain);
    const kind = pollClass(domain);
    const t = this.now();
    const previous = this.entries.get(domain.hostname);
    if (kind === 'none') {
      this.entries.delete(domain.hostname);
      return Boolean(previous) && previous.signature !== signature;
    }
    const changed = !previous || previous.signature !== signature;
    const since = changed ? t : previous.since;
    const age = t - since;
    const delay = kind === 'slow' ? Math.max(pollDelay(age, this.schedule), 60_000) : pollDelay(age, this.schedule);
    this.entries.set(domain.hostname, { signature, since, due: t + delay });
    return Boolean(previous) && changed;
  }

  forget(hostname) {
    this.entries.delete(hostname);
  }

  /** Hostnames due now, oldest due first. */
  due() {
    const t = this.now();
    return [...this.entries.entries()]
      .filter(([, e]) => e.due <= t)
      .sort((a, b) => a[1].due - b[1].due)
      .map(([hostname]) => hostname);
  }

  /** Milliseconds until the next poll is due (0 if one is due now), or null when nothing is watched. */
  nextIn() {
    if (this.entries.size === 0) return null;
    const t = this.now();
    let min = Infinity;
    for (const e of this.entries.values()) min = Math.min(min, e.due - t);
    return Math.max(0, min);
  }
}

/**
 * How to refresh the domains that are due: one by one when few are due, else one list request
 * for the whole project, so that thousands of pending domains cost one request, not thousands.
 */
export function pollPlan(dueHostnames, threshold = 5) {
  if (dueHostnames.length === 0) return { kind: 'idle' };
  if (dueHostnames.length > threshold) return { kind: 'list' };
  return { kind: 'each', hostnames: dueHostnames };
}

/** The transition worth a desktop notification, or null: went live, or the certificate failed. */
export function notableChange(before, after) {
  if (!before || !after) return null;
  if (before.status !== 'live' && after.status === 'live') return 'live';
  const failedBefore = before.certificate?.status === 'failed';
  const failedAfter = after.certificate?.status === 'failed';
  if (!failedBefore && failedAfter) return 'certificate_failed';
  return null;
}
