// How often a domain that is not live is checked: often while a change is fresh, less as it
// ages, so that watching many domains costs little of the rate limit. The schedule is pure;
// `PollSchedule` keeps per-domain state with a clock the caller gives it (the platform's).

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
 * How a domain is watched. Live domains are done. A domain waiting for DNS changes only when
 * the platform checks its DNS again, so it is re-verified by itself (`verify`, a POST that
 * spends the rate limit: on `VERIFY_SCHEDULE`, which backs off further). One whose
 * certificate is being issued changes on the platform's side, so it is read (`get`); a failed
 * certificate only changes when the user acts, so it is read slowly (`get-slow`).
 */
export function pollClass(domain) {
  if (domain.status === 'live') return 'none';
  if (domain.status === 'verified' && domain.certificate?.status === 'failed') return 'get-slow';
  if (domain.status === 'verified') return 'get';
  return 'verify';
}

/**
 * Whether a domain still waits on the platform for something that comes without the user:
 * DNS to be seen, or a certificate to be issued. Closing the window keeps watching these.
 */
export function awaitsPlatform(domain) {
  return pollClass(domain) !== 'none' && domain.certificate?.status !== 'failed';
}

/**
 * The domains of `after` that are not the objects of `before`, when `after` is `before` with
 * domains replaced in place (the same hostnames at the same places, as an answer for one
 * domain leaves the list); null when the list changed otherwise (a domain added, removed or
 * moved). Observing only these is observing them all: an unchanged copy is no news.
 */
export function replacedDomains(before, after) {
  if (!before || before.length !== after.length) return null;
  const replaced = [];
  for (let i = 0; i < after.length; i++) {
    if (before[i] === after[i]) continue;
    if (before[i].hostname !== after[i].hostname) return null;
    replaced.push(after[i]);
  }
  return replaced;
}

/** Re-verification of a domain waiting for DNS: every minute at first, hourly after a day. */
export const VERIFY_SCHEDULE = Object.freeze([
  { upTo: 10 * 60_000, every: 60_000 },
  { upTo: 60 * 60_000, every: 5 * 60_000 },
  { upTo: 24 * 3_600_000, every: 15 * 60_000 },
  { upTo: Infinity, every: 60 * 60_000 },
]);

/**
 * A signature of what the platform says about a domain: a new signature restarts the back-off.
 * The time of the check is not part of it, so a domain whose checks keep finding the same
 * thing ages and is checked less often.
 */
export function stateSignature(domain) {
  const error = domain.verification?.error;
  const found = (error?.found ?? []).map((r) => `${r.type} ${r.value}`).sort().join(',');
  return [domain.status, domain.certificate?.status, domain.role, error?.code ?? '', found].join('|');
}

export class PollSchedule {
  /** `now()` returns the platform's milliseconds; tests pass a fake clock. */
  constructor(now = () => Date.now(), schedule = SCHEDULE, verifySchedule = VERIFY_SCHEDULE) {
    this.now = now;
    this.schedule = schedule;
    this.verifySchedule = verifySchedule;
    this.entries = new Map();
  }

  delay(kind, age) {
    if (kind === 'verify') return pollDelay(age, this.verifySchedule);
    if (kind === 'get-slow') return Math.max(pollDelay(age, this.schedule), 60_000);
    return pollDelay(age, this.schedule);
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
    const changed = !previous || previous.signature !== signature || previous.kind !== kind;
    const since = changed ? t : previous.since;
    // A copy that is no news keeps the check already planned; news plans the next one.
    const fresh = changed || (domain.verification?.checked_at ?? null) !== previous.checkedAt;
    const due = fresh ? t + this.delay(kind, t - since) : previous.due;
    const checkedAt = domain.verification?.checked_at ?? null;
    if (previous) {
      // Changed in place: thousands of domains are observed again after each minute's
      // re-verify, and a new entry for each left the old ones, long-lived, to a full collection.
      if (changed) previous.signature = signature;
      previous.kind = kind;
      previous.since = since;
      previous.due = due;
      previous.checkedAt = checkedAt;
    } else {
      this.entries.set(domain.hostname, { signature, kind, since, due, checkedAt });
    }
    return Boolean(previous) && changed;
  }

  /**
   * The user changed something that may change the answer (a record in Demo DNS, a Verify
   * pressed): the domain's back-off starts again, with its next check `soon` ms from now.
   */
  restart(hostname, soon = 0) {
    const entry = this.entries.get(hostname);
    if (!entry) return;
    const t = this.now();
    entry.since = t;
    entry.due = Math.min(entry.due, t + soon);
  }

  /** `hostname` was just checked or read: its next check is planned from now. */
  polled(hostname) {
    const entry = this.entries.get(hostname);
    if (!entry) return;
    const t = this.now();
    entry.due = t + this.delay(entry.kind, t - entry.since);
  }

  /** Moves `hostname`'s next check `ms` later (a check deferred for the rate limit's sake). */
  postpone(hostname, ms) {
    const entry = this.entries.get(hostname);
    if (entry) entry.due = this.now() + ms;
  }

  forget(hostname) {
    this.entries.delete(hostname);
  }

  /** How `hostname` is watched (`verify`, `get`, `get-slow`), or null. */
  kindOf(hostname) {
    return this.entries.get(hostname)?.kind ?? null;
  }

  /** The platform time of `hostname`'s next check, or null when it is not watched. */
  dueAt(hostname) {
    return this.entries.get(hostname)?.due ?? null;
  }

  /** Hostnames due now, oldest due first. */
  due() {
    const t = this.now();
    return [...this.entries.entries()]
      .filter(([, e]) => e.due <= t)
      .sort((a, b) => a[1].due - b[1].due)
      .map(([hostname]) => hostname);
  }

  /** The earliest due time (platform ms), or null when nothing is watched. */
  nextDue() {
    if (this.entries.size === 0) return null;
    let min = Infinity;
    for (const e of this.entries.values()) min = Math.min(min, e.due);
    return min;
  }

  /** Milliseconds until the next poll is due (0 if one is due now), or null when nothing is watched. */
  nextIn() {
    const next = this.nextDue();
    return next == null ? null : Math.max(0, next - this.now());
  }
}

/**
 * What to send for the domains that are due. Domains waiting for DNS are re-verified one by
 * one, but only as many as `verifyBudget` allows (the caller gives it a share of what is left
 * of the rate limit, so the user's own clicks never wait behind the watch); the rest are
 * `deferred`. The others are read: one by one when few are due, else with one list request,
 * so that thousands of issuing domains cost one request, not thousands.
 */
export function pollPlan(dueHostnames, kindOf = () => 'get', { threshold = 5, verifyBudget = Infinity } = {}) {
  const verifying = dueHostnames.filter((h) => kindOf(h) === 'verify');
  const reading = dueHostnames.filter((h) => kindOf(h) !== 'verify');
  const allowed = Math.max(0, Math.floor(verifyBudget));
  const verify = verifying.slice(0, allowed);
  const deferred = verifying.slice(allowed);
  let read;
  if (reading.length === 0) read = { kind: 'idle' };
  else if (reading.length > threshold) read = { kind: 'list' };
  else read = { kind: 'each', hostnames: reading };
  return { verify, deferred, read };
}

/**
 * How many re-verifications go in one call to the app: each call's answer crosses into the
 * web view once, so hundreds of checks make tens of crossings rather than hundreds, and the
 * answers of a call reach the list at most twenty checks after the first of them (about two
 * seconds at a platform 100 ms away).
 */
export const REVERIFY_CHUNK = 20;

/** `items` in consecutive slices of at most `size` (at least one), in order; none for none. */
export function inChunks(items, size) {
  const step = Math.max(1, Math.floor(size));
  const chunks = [];
  for (let i = 0; i < items.length; i += step) chunks.push(items.slice(i, i + step));
  return chunks;
}

/**
 * How many automatic re-verifications a poll may send, from the queue's state: half of what
 * is left of the binding window, none while paused or banned, one when nothing is known yet.
 */
export function verifyBudget(queue, nowMs) {
  if (!queue || queue.limit == null) return 1;
  const until = (t) => (t ? Date.parse(t) : NaN);
  if (until(queue.banned_until) > nowMs || until(queue.paused_until) > nowMs) return 0;
  return Math.floor(Math.max(0, queue.remaining) / 2);
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
